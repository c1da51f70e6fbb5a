package bigtabletest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// Features says which deliberate differences from Cloud Bigtable, listed in
// the Caveats of bigtable/doc.go, a store has. Cases that depend on one run
// only on stores that have it.
type Features struct {
	// Micros: timestamps keep microsecond granularity (bigtable/doc.go,
	// Caveats: "Timestamps keep microsecond granularity").
	Micros bool
	// GCAtRead: reads never return a cell the family's GC policy has
	// collected (bigtable/doc.go, Caveats: "GC is stricter").
	GCAtRead bool
	// PartialWriteOnError: a mutation that fails on an undeclared family
	// has already written its operations before it. Not a documented
	// difference but a bug of the emulator (bttest's applyMutations applies
	// operations in order and stops at the first bad family); Cloud
	// Bigtable and bigtable's store write all or nothing.
	PartialWriteOnError bool
	// UncheckedBranches: a conditional mutation is refused for an
	// undeclared family only in the branch it applies. bigtable's store
	// checks both branches before anything; the emulator (bttest's
	// CheckAndMutateRow) checks only the one it runs.
	UncheckedBranches bool
}

// Badger are the Features of package bigtable's own store.
var Badger = Features{Micros: true, GCAtRead: true}

// Cloud are the Features of Cloud Bigtable: none.
var Cloud = Features{}

// Emulator are the Features of the Cloud Bigtable emulator
// (cloud.google.com/go/bigtable/bttest), bugs included.
var Emulator = Features{PartialWriteOnError: true, UncheckedBranches: true}

// conformanceCase is one behaviour every store must show.
type conformanceCase struct {
	name string
	run  func(t *testing.T, c *env)
}

// env is what a case gets: the store, a table "t" with families A and B,
// and the store's Features.
type env struct {
	ctx   context.Context
	store Store
	tbl   Table
	feat  Features
}

// RunConformance runs the conformance suite as subtests of t. open returns
// a fresh, empty store for each subtest (register its cleanup with
// t.Cleanup); feat says which documented differences it has.
func RunConformance(t *testing.T, feat Features, open func(t *testing.T) Store) {
	var cases []conformanceCase
	cases = append(cases, schemaCases...)
	cases = append(cases, writeCases...)
	cases = append(cases, readCases...)
	cases = append(cases, filterCases...)
	cases = append(cases, parallelCases...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := open(t)
			mustDo(t, "CreateTable(t)", st.CreateTable(ctx, "t"))
			for _, f := range []string{"A", "B"} {
				mustDo(t, "CreateColumnFamily(t, "+f+")", st.CreateColumnFamily(ctx, "t", f))
			}
			tc.run(t, &env{ctx: ctx, store: st, tbl: st.Table("t"), feat: feat})
		})
	}
}

func mustDo(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// set applies one Set per cell, given as "family:qualifier@ts=value".
func (c *env) set(t *testing.T, row string, cells ...string) {
	t.Helper()
	m := bigtable.NewMutation()
	for _, s := range cells {
		fam, qual, ts, val := parseCell(t, s)
		m.Set(fam, qual, ts, []byte(val))
	}
	mustDo(t, fmt.Sprintf("Apply(%q, %v)", row, cells), c.tbl.Apply(c.ctx, row, m))
}

func parseCell(t *testing.T, s string) (fam, qual string, ts bigtable.Timestamp, val string) {
	t.Helper()
	col, rest, ok1 := strings.Cut(s, "@")
	tsStr, val, ok2 := strings.Cut(rest, "=")
	fam, qual, ok3 := strings.Cut(col, ":")
	var n int64
	_, err := fmt.Sscan(tsStr, &n)
	if !ok1 || !ok2 || !ok3 || err != nil {
		t.Fatalf("bad cell spec %q, want family:qualifier@ts=value", s)
	}
	return fam, qual, bigtable.Timestamp(n), val
}

// cells renders a row as "family:qualifier@ts=value" strings, families in
// name order, each family's items in the order the store returned them.
func cells(r bigtable.Row) []string {
	var out []string
	for _, fam := range slices.Sorted(maps.Keys(r)) {
		for _, it := range r[fam] {
			out = append(out, fmt.Sprintf("%s@%d=%s", it.Column, it.Timestamp, it.Value))
		}
	}
	return out
}

// read reads one row and renders it with cells.
func (c *env) read(t *testing.T, row string, opts ...bigtable.ReadOption) []string {
	t.Helper()
	r, err := c.tbl.ReadRow(c.ctx, row, opts...)
	if err != nil {
		t.Fatalf("ReadRow(%q): %v", row, err)
	}
	if r != nil && r.Key() != row {
		t.Errorf("ReadRow(%q).Key() = %q", row, r.Key())
	}
	return cells(r)
}

// keys reads rs and returns the keys of the rows, in the order read.
func (c *env) keys(t *testing.T, rs bigtable.RowSet, opts ...bigtable.ReadOption) []string {
	t.Helper()
	out := []string{}
	err := c.tbl.ReadRows(c.ctx, rs, func(r bigtable.Row) bool {
		out = append(out, r.Key())
		return true
	}, opts...)
	if err != nil {
		t.Fatalf("ReadRows(%v): %v", rs, err)
	}
	return out
}

// check compares a rendering with what it should be.
func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
