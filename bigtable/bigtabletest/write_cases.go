package bigtabletest

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
)

var writeCases = []conformanceCase{
	{"write/data model example", func(t *testing.T, c *env) {
		// The paper's example in milliseconds, which both stores keep.
		c.set(t, "aaa", "A:foo@15000=y", "A:foo@4000=m")
		check(t, "plain read", c.read(t, "aaa"), []string{"A:foo@15000=y", "A:foo@4000=m"})
		check(t, "latest", c.read(t, "aaa", bigtable.RowFilter(bigtable.LatestNFilter(1))), []string{"A:foo@15000=y"})
		check(t, "as of 4000", c.read(t, "aaa", asOf(4000)), []string{"A:foo@4000=m"})
		check(t, "as of 2000", c.read(t, "aaa", asOf(2000)), nil)
	}},
	{"write/microseconds", func(t *testing.T, c *env) {
		if !c.feat.Micros {
			// bigtable/doc.go, Caveats: "Timestamps keep microsecond
			// granularity" — Cloud Bigtable truncates them to milliseconds.
			t.Skip("store truncates timestamps to milliseconds")
		}
		c.set(t, "aaa", "A:foo@15=y", "A:foo@4=m")
		check(t, "as of 4", c.read(t, "aaa", bigtable.RowFilter(bigtable.ChainFilters(
			bigtable.TimestampRangeFilterMicros(0, 5), bigtable.LatestNFilter(1)))), []string{"A:foo@4=m"})
		check(t, "as of 2", c.read(t, "aaa", bigtable.RowFilter(bigtable.TimestampRangeFilterMicros(0, 3))), nil)
	}},
	{"write/set replaces same timestamp", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=one")
		c.set(t, "r", "A:q@1000=two")
		check(t, "row", c.read(t, "r"), []string{"A:q@1000=two"})
	}},
	{"write/server time", func(t *testing.T, c *env) {
		before := bigtable.Now()
		m := bigtable.NewMutation()
		m.Set("A", "q", bigtable.ServerTime, []byte("v"))
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		after := bigtable.Now()
		r, err := c.tbl.ReadRow(c.ctx, "r")
		mustDo(t, "ReadRow", err)
		if len(r["A"]) != 1 {
			t.Fatalf("row = %v, want one cell", r)
		}
		// The server's clock may be a little off; a minute is plenty.
		ts := r["A"][0].Timestamp
		if ts < before-bigtable.Timestamp(time.Minute/time.Microsecond) || ts > after+bigtable.Timestamp(time.Minute/time.Microsecond) {
			t.Errorf("ServerTime cell at %d, want near [%d, %d]", ts, before, after)
		}
	}},
	{"write/empty value", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=")
		r, err := c.tbl.ReadRow(c.ctx, "r")
		mustDo(t, "ReadRow", err)
		if len(r["A"]) != 1 || r["A"][0].Value != nil {
			t.Errorf("empty value read back as %v, want one cell with a nil Value", r)
		}
	}},
	{"write/delete cells in column", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=a", "A:q@2000=b", "A:p@1000=c")
		m := bigtable.NewMutation()
		m.DeleteCellsInColumn("A", "q")
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "row", c.read(t, "r"), []string{"A:p@1000=c"})
	}},
	{"write/delete timestamp range", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=a", "A:q@2000=b", "A:q@3000=c", "A:q@4000=d")
		m := bigtable.NewMutation()
		m.DeleteTimestampRange("A", "q", 2000, 4000) // [2000, 4000)
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "after [2000,4000)", c.read(t, "r"), []string{"A:q@4000=d", "A:q@1000=a"})
		m = bigtable.NewMutation()
		m.DeleteTimestampRange("A", "q", 3000, 0) // [3000, ∞)
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "after [3000,∞)", c.read(t, "r"), []string{"A:q@1000=a"})
	}},
	{"write/delete cells in family", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=a", "A:p@1000=b", "B:q@1000=c")
		m := bigtable.NewMutation()
		m.DeleteCellsInFamily("A")
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "row", c.read(t, "r"), []string{"B:q@1000=c"})
	}},
	{"write/delete row", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=a", "B:q@1000=c")
		c.set(t, "s", "A:q@1000=a")
		m := bigtable.NewMutation()
		m.DeleteRow()
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "deleted row", c.read(t, "r"), nil)
		check(t, "other row", c.read(t, "s"), []string{"A:q@1000=a"})
	}},
	{"write/ops apply in order", func(t *testing.T, c *env) {
		m := bigtable.NewMutation()
		m.Set("A", "gone", 1000, []byte("x"))
		m.DeleteCellsInColumn("A", "gone")
		m.DeleteRow()
		m.Set("A", "kept", 1000, []byte("y"))
		mustDo(t, "Apply", c.tbl.Apply(c.ctx, "r", m))
		check(t, "row", c.read(t, "r"), []string{"A:kept@1000=y"})
	}},
	{"write/unknown family", func(t *testing.T, c *env) {
		err := c.tbl.Apply(c.ctx, "r", setFam("nope", "q", "v"))
		if !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Fatalf("Apply to family nope = %v, want ErrUnknownFamily", err)
		}
		if !strings.Contains(err.Error(), "nope") {
			t.Errorf("error %q does not name the family", err)
		}
	}},
	{"write/unknown family writes nothing", func(t *testing.T, c *env) {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, []byte("v"))
		m.Set("nope", "q", 1000, []byte("v"))
		if err := c.tbl.Apply(c.ctx, "r", m); !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Fatalf("Apply = %v, want ErrUnknownFamily", err)
		}
		if c.feat.PartialWriteOnError {
			t.Skip("known emulator bug: see Features.PartialWriteOnError")
		}
		check(t, "row after a failed Apply", c.read(t, "r"), nil)
	}},
	{"write/invalid input", func(t *testing.T, c *env) {
		if err := c.tbl.Apply(c.ctx, "", setA("q", 1000, "v")); !errors.Is(err, bigtable.ErrInvalidRowKey) {
			t.Errorf("Apply to row \"\" = %v, want ErrInvalidRowKey", err)
		}
		if err := c.tbl.Apply(c.ctx, strings.Repeat("k", bigtable.MaxRowKeySize+1), setA("q", 1000, "v")); !errors.Is(err, bigtable.ErrInvalidRowKey) {
			t.Errorf("Apply to a 4 KiB+1 row key = %v, want ErrInvalidRowKey", err)
		}
		if err := c.tbl.Apply(c.ctx, "r", bigtable.NewMutation()); !errors.Is(err, bigtable.ErrInvalidMutation) {
			t.Errorf("Apply(empty mutation) = %v, want ErrInvalidMutation", err)
		}
		if err := c.tbl.Apply(c.ctx, "r", nil); !errors.Is(err, bigtable.ErrInvalidMutation) {
			t.Errorf("Apply(nil) = %v, want ErrInvalidMutation", err)
		}
		nested := bigtable.NewCondMutation(nil, bigtable.NewCondMutation(nil, setA("q", 1000, "v"), nil), nil)
		if err := c.tbl.Apply(c.ctx, "r", nested); !errors.Is(err, bigtable.ErrInvalidMutation) {
			t.Errorf("Apply(nested conditional) = %v, want ErrInvalidMutation", err)
		}
		if _, err := c.tbl.ApplyReadModifyWrite(c.ctx, "r", bigtable.NewReadModifyWrite()); !errors.Is(err, bigtable.ErrInvalidMutation) {
			t.Errorf("ApplyReadModifyWrite(no rules) = %v, want ErrInvalidMutation", err)
		}
		check(t, "row after invalid writes", c.read(t, "r"), nil)
	}},
	{"write/conditional", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=v")
		var matched bool
		m := bigtable.NewCondMutation(bigtable.ValueFilter("v"), setA("t", 1000, "true"), setA("f", 1000, "false"))
		mustDo(t, "Apply(cond, matching)", c.tbl.Apply(c.ctx, "r", m, bigtable.GetCondMutationResult(&matched)))
		if !matched {
			t.Error("GetCondMutationResult = false for a matching condition")
		}
		m = bigtable.NewCondMutation(bigtable.ValueFilter("nothing"), setA("t2", 1000, "true"), setA("f2", 1000, "false"))
		mustDo(t, "Apply(cond, not matching)", c.tbl.Apply(c.ctx, "r", m, bigtable.GetCondMutationResult(&matched)))
		if matched {
			t.Error("GetCondMutationResult = true for a condition that matches nothing")
		}
		check(t, "row", c.read(t, "r"), []string{"A:f2@1000=false", "A:q@1000=v", "A:t@1000=true"})
	}},
	{"write/conditional without filter", func(t *testing.T, c *env) {
		// A nil filter asks whether the row has any cell.
		matched := true
		m := bigtable.NewCondMutation(nil, nil, setA("created", 1000, "x"))
		mustDo(t, "Apply(cond on empty row)", c.tbl.Apply(c.ctx, "r", m, bigtable.GetCondMutationResult(&matched)))
		if matched {
			t.Error("nil condition matched an empty row")
		}
		m = bigtable.NewCondMutation(nil, setA("again", 1000, "y"), nil)
		mustDo(t, "Apply(cond on full row)", c.tbl.Apply(c.ctx, "r", m, bigtable.GetCondMutationResult(&matched)))
		if !matched {
			t.Error("nil condition did not match a row with a cell")
		}
		check(t, "row", c.read(t, "r"), []string{"A:again@1000=y", "A:created@1000=x"})
	}},
	{"write/conditional checks both branches", func(t *testing.T, c *env) {
		m := bigtable.NewCondMutation(bigtable.BlockAllFilter(), setFam("nope", "q", "v"), setA("q", 1000, "v"))
		err := c.tbl.Apply(c.ctx, "r", m)
		if c.feat.UncheckedBranches {
			t.Skipf("known emulator difference (Features.UncheckedBranches): Apply = %v", err)
		}
		if !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Errorf("Apply(cond with an undeclared family in the branch not taken) = %v, want ErrUnknownFamily", err)
		}
		check(t, "row", c.read(t, "r"), nil)
	}},
	{"write/conditional with empty branches", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=v")
		for _, tc := range []struct {
			name string
			cond bigtable.Filter
			want bool
		}{
			{"matching", bigtable.ValueFilter("v"), true},
			{"not matching", bigtable.ValueFilter("w"), false},
			{"nil filter", nil, true},
		} {
			matched := !tc.want
			m := bigtable.NewCondMutation(tc.cond, nil, bigtable.NewMutation())
			mustDo(t, "Apply("+tc.name+")", c.tbl.Apply(c.ctx, "r", m, bigtable.GetCondMutationResult(&matched)))
			if matched != tc.want {
				t.Errorf("%s: GetCondMutationResult = %v, want %v", tc.name, matched, tc.want)
			}
		}
		matched := true
		mustDo(t, "Apply(on an empty row)", c.tbl.Apply(c.ctx, "empty", bigtable.NewCondMutation(nil, nil, nil), bigtable.GetCondMutationResult(&matched)))
		if matched {
			t.Error("nil condition matched an absent row")
		}
		check(t, "row", c.read(t, "r"), []string{"A:q@1000=v"})
	}},
	{"write/invalid timestamps", func(t *testing.T, c *env) {
		m := bigtable.NewMutation()
		m.Set("A", "q", -2000, []byte("v"))
		if err := c.tbl.Apply(c.ctx, "r", m); !errors.Is(err, bigtable.ErrInvalidTimestamp) {
			t.Errorf("Set at -2000 = %v, want ErrInvalidTimestamp", err)
		}
		for _, r := range [][2]bigtable.Timestamp{{2000, 1000}, {2000, 2000}, {-1000, 0}} {
			m := bigtable.NewMutation()
			m.DeleteTimestampRange("A", "q", r[0], r[1])
			if err := c.tbl.Apply(c.ctx, "r", m); !errors.Is(err, bigtable.ErrInvalidTimestamp) {
				t.Errorf("DeleteTimestampRange(%d, %d) = %v, want ErrInvalidTimestamp", r[0], r[1], err)
			}
		}
		big := bigtable.NewMutation()
		big.Set("A", strings.Repeat("q", bigtable.MaxQualifierSize+1), 1000, nil)
		if err := c.tbl.Apply(c.ctx, "r", big); !errors.Is(err, bigtable.ErrInvalidQualifier) {
			t.Errorf("Set with a 16 KiB+1 qualifier = %v, want ErrInvalidQualifier", err)
		}
	}},
	{"write/cancelled context", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=v")
		ctx, cancel := context.WithCancel(c.ctx)
		cancel()
		if err := c.tbl.Apply(ctx, "r", setA("q", 2000, "w")); !errors.Is(err, context.Canceled) {
			t.Errorf("Apply with a cancelled context = %v, want context.Canceled", err)
		}
		if _, err := c.tbl.ReadRow(ctx, "r"); !errors.Is(err, context.Canceled) {
			t.Errorf("ReadRow with a cancelled context = %v, want context.Canceled", err)
		}
		err := c.tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool { return true })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ReadRows with a cancelled context = %v, want context.Canceled", err)
		}
		check(t, "row", c.read(t, "r"), []string{"A:q@1000=v"})
	}},
	{"write/read-modify-write", func(t *testing.T, c *env) {
		m := bigtable.NewReadModifyWrite()
		m.Increment("A", "n", 5)
		m.AppendValue("A", "s", []byte("ab"))
		r, err := c.tbl.ApplyReadModifyWrite(c.ctx, "r", m)
		mustDo(t, "ApplyReadModifyWrite", err)
		check(t, "result values", values(r), []string{"A:n=" + int64Str(5), "A:s=ab"})
		m = bigtable.NewReadModifyWrite()
		m.Increment("A", "n", -7)
		m.AppendValue("A", "s", []byte("c"))
		r, err = c.tbl.ApplyReadModifyWrite(c.ctx, "r", m)
		mustDo(t, "ApplyReadModifyWrite again", err)
		check(t, "result values", values(r), []string{"A:n=" + int64Str(-2), "A:s=abc"})
		got, err := c.tbl.ReadRow(c.ctx, "r", bigtable.RowFilter(bigtable.LatestNFilter(1)))
		mustDo(t, "ReadRow", err)
		check(t, "stored values", values(got), []string{"A:n=" + int64Str(-2), "A:s=abc"})
	}},
	{"write/increment of a non-integer", func(t *testing.T, c *env) {
		c.set(t, "r", "A:n@1000=abc")
		m := bigtable.NewReadModifyWrite()
		m.Increment("A", "n", 1)
		if _, err := c.tbl.ApplyReadModifyWrite(c.ctx, "r", m); !errors.Is(err, bigtable.ErrInvalidIncrement) {
			t.Errorf("Increment of a 3-byte value = %v, want ErrInvalidIncrement", err)
		}
	}},
	{"write/apply bulk", func(t *testing.T, c *env) {
		rows := []string{"b", "a", "c"}
		muts := []*bigtable.Mutation{setA("q", 1000, "b"), setA("q", 1000, "a"), setA("q", 1000, "c")}
		errs, err := c.tbl.ApplyBulk(c.ctx, rows, muts)
		if errs != nil || err != nil {
			t.Fatalf("ApplyBulk = %v, %v; want nil, nil", errs, err)
		}
		check(t, "rows", c.keys(t, bigtable.InfiniteRange("")), []string{"a", "b", "c"})
	}},
	{"write/apply bulk with failing rows", func(t *testing.T, c *env) {
		rows := []string{"a", "b", "c", "d", ""}
		muts := []*bigtable.Mutation{
			setA("q", 1000, "a"),
			setFam("nope", "q", "b"),
			bigtable.NewCondMutation(nil, setA("q", 1000, "c"), nil),
			setA("q", 1000, "d"),
			setA("q", 1000, "e"),
		}
		errs, err := c.tbl.ApplyBulk(c.ctx, rows, muts)
		if err != nil {
			t.Fatalf("ApplyBulk: %v", err)
		}
		if len(errs) != len(rows) {
			t.Fatalf("ApplyBulk returned %d errors for %d rows: %v", len(errs), len(rows), errs)
		}
		want := []error{nil, bigtable.ErrUnknownFamily, bigtable.ErrInvalidMutation, nil, bigtable.ErrInvalidRowKey}
		for i, w := range want {
			if (w == nil) != (errs[i] == nil) || (w != nil && !errors.Is(errs[i], w)) {
				t.Errorf("ApplyBulk error of row %q = %v, want %v", rows[i], errs[i], w)
			}
		}
		check(t, "rows written", c.keys(t, bigtable.InfiniteRange("")), []string{"a", "d"})
		if _, err := c.tbl.ApplyBulk(c.ctx, []string{"x"}, nil); err == nil {
			t.Error("ApplyBulk with 1 row and 0 mutations succeeded")
		}
	}},
}

// asOf returns a read option for the newest version at or before ms
// milliseconds (written in microseconds, whole milliseconds).
func asOf(ms bigtable.Timestamp) bigtable.ReadOption {
	return bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.TimestampRangeFilterMicros(0, ms+1000), bigtable.LatestNFilter(1)))
}

func setFam(fam, qual, value string) *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.Set(fam, qual, 1000, []byte(value))
	return m
}

// values renders a row as "family:qualifier=value", ignoring timestamps.
func values(r bigtable.Row) []string {
	var out []string
	for _, s := range cells(r) {
		col, rest, _ := strings.Cut(s, "@")
		_, v, _ := strings.Cut(rest, "=")
		out = append(out, col+"="+v)
	}
	return out
}

func int64Str(n int64) string { return string(binary.BigEndian.AppendUint64(nil, uint64(n))) }
