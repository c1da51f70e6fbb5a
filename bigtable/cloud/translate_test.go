package cloud

import (
	"context"
	"errors"
	"testing"
	"time"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestToGCPolicy(t *testing.T) {
	tests := []struct {
		name string
		p    bigtable.GCPolicy
		want string // the Cloud policy's String
	}{
		{"nil", nil, ""},
		{"no gc", bigtable.NoGcPolicy(), ""},
		{"max versions", bigtable.MaxVersionsPolicy(3), "versions() > 3"},
		{"max age", bigtable.MaxAgePolicy(48 * time.Hour), "age() > 2d"},
		{"union", bigtable.UnionPolicy(bigtable.MaxVersionsPolicy(1), bigtable.MaxAgePolicy(time.Hour)), "(versions() > 1 || age() > 1h)"},
		{"intersection", bigtable.IntersectionPolicy(bigtable.MaxVersionsPolicy(1), bigtable.MaxAgePolicy(time.Hour)), "(versions() > 1 && age() > 1h)"},
		{"empty union collects nothing", bigtable.UnionPolicy(), ""},
		{"empty intersection collects nothing", bigtable.IntersectionPolicy(), ""},
		{"union of one is that one", bigtable.UnionPolicy(bigtable.MaxVersionsPolicy(2)), "versions() > 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.GCPolicyOf(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := toGCPolicy(s)
			if err != nil {
				t.Fatalf("toGCPolicy(%v): %v", tc.p, err)
			}
			if got.String() != tc.want {
				t.Errorf("toGCPolicy(%v) = %q, want %q", tc.p, got.String(), tc.want)
			}
			if tc.p != nil && len(s.Sub) != 1 && tc.want != "" {
				if back := fromGCPolicy(got); back.String() != tc.p.String() {
					t.Errorf("fromGCPolicy(toGCPolicy(%v)) = %v, want it back", tc.p, back)
				}
			}
		})
	}
	for _, p := range []bigtable.GCPolicy{bigtable.MaxVersionsPolicy(-1), bigtable.UnionPolicy(bigtable.MaxAgePolicy(-time.Second))} {
		s, _ := spec.GCPolicyOf(p)
		if _, err := toGCPolicy(s); err == nil {
			t.Errorf("toGCPolicy(%v) succeeded, want an error", p)
		}
	}
}

func TestToRowRange(t *testing.T) {
	tests := []struct {
		r      bigtable.RowRange
		want   string // the Cloud range's String
		holds  bool
		inside []string
	}{
		{bigtable.NewRange("a", "c"), `["a","c")`, true, []string{"a", "b"}},
		{bigtable.NewOpenRange("a", "c"), `("a","c")`, true, []string{"b"}},
		{bigtable.NewOpenClosedRange("a", "c"), `("a","c"]`, true, []string{"b", "c"}},
		{bigtable.NewClosedRange("a", "c"), `["a","c"]`, true, []string{"a", "c"}},
		{bigtable.NewClosedRange("a", "a"), `["a","a"]`, true, []string{"a"}},
		{bigtable.NewRange("a", "a"), `["a","a")`, false, nil},
		{bigtable.NewRange("c", "a"), `["c","a")`, false, nil},
		{bigtable.InfiniteRange("b"), `["b",∞)`, true, []string{"b", "\xff"}},
		{bigtable.InfiniteReverseRange("b"), `(∞,"b"]`, true, []string{"\x00", "b"}},
		{bigtable.PrefixRange(""), `(∞,∞)`, true, []string{"\x00"}},
		{bigtable.PrefixRange("\xff\xff"), `["\xff\xff",∞)`, true, []string{"\xff\xff"}},
	}
	for _, tc := range tests {
		t.Run(tc.r.String(), func(t *testing.T) {
			s, err := spec.RowSetOf(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			got, holds := toRowRange(s.Ranges[0])
			if got.String() != tc.want || holds != tc.holds {
				t.Errorf("toRowRange(%v) = %v, %v; want %s, %v", tc.r, got, holds, tc.want, tc.holds)
			}
			for _, k := range tc.inside {
				if !got.Contains(k) || !tc.r.Contains(k) {
					t.Errorf("%q: in ours %v, in Cloud's %v; want both", k, tc.r.Contains(k), got.Contains(k))
				}
			}
		})
	}
	// An open start with no end has no Cloud constructor of its own.
	open := spec.RowRange{StartBound: spec.Open, Start: "b"}
	if got, ok := toRowRange(open); !ok || got.Contains("b") || !got.Contains("b\x00") || !got.Contains("\xff") {
		t.Errorf("toRowRange((b,∞)) = %v, %v; want (\"b\",∞), true", got, ok)
	}
}

func TestToFilterArguments(t *testing.T) {
	for _, f := range []bigtable.Filter{
		bigtable.ChainFilters(bigtable.PassAllFilter(), nil),
		bigtable.InterleaveFilters(nil),
		bigtable.ChainFilters(bigtable.PassAllFilter()),
		bigtable.InterleaveFilters(bigtable.PassAllFilter()),
		bigtable.ChainFilters(),
		bigtable.InterleaveFilters(),
		bigtable.ConditionFilter(nil, bigtable.PassAllFilter(), nil),
		bigtable.RowKeyFilter(""),
		bigtable.LatestNFilter(-1),
		bigtable.CellsPerRowLimitFilter(0),
		bigtable.CellsPerRowOffsetFilter(-2),
		bigtable.RowSampleFilter(0),
		bigtable.RowSampleFilter(1),
	} {
		s, err := spec.FilterOf(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := toFilter(s); !errors.Is(err, bigtable.ErrInvalidFilter) {
			t.Errorf("toFilter(%v) = %v, want ErrInvalidFilter", f, err)
		}
	}
	if _, err := toFilter(&spec.Filter{Kind: 200}); !errors.Is(err, spec.ErrUnknownVariant) {
		t.Errorf("toFilter(kind 200) = %v, want ErrUnknownVariant", err)
	}
}

func TestFromRow(t *testing.T) {
	if got := fromRow(nil); got != nil {
		t.Errorf("fromRow(nil) = %v, want nil", got)
	}
	if got := fromRow(gbt.Row{"A": nil}); got != nil {
		t.Errorf("fromRow(family without items) = %v, want nil", got)
	}
	got := fromRow(gbt.Row{"A": {{Row: "r", Column: "A:q", Timestamp: 1000, Value: []byte{}}}})
	want := bigtable.ReadItem{Row: "r", Column: "A:q", Timestamp: 1000}
	if len(got["A"]) != 1 || got["A"][0].Value != nil || got["A"][0].Column != want.Column || got["A"][0].Timestamp != want.Timestamp {
		t.Errorf("fromRow = %#v, want one item %#v with a nil Value", got, want)
	}
}

func TestWrapErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error // nil: no sentinel
	}{
		{"emulator unknown family", status.Error(codes.Unknown, `unknown family "nope"`), bigtable.ErrUnknownFamily},
		{"emulator family delete", status.Error(codes.Unknown, `can't delete unknown family "A"`), bigtable.ErrUnknownFamily},
		{"emulator family update", status.Error(codes.Unknown, `no such family "A"`), bigtable.ErrUnknownFamily},
		{"server family not found", status.Error(codes.NotFound, "Requested column family not found."), bigtable.ErrUnknownFamily},
		{"table not found", status.Error(codes.NotFound, `table "projects/p/instances/i/tables/t" not found`), bigtable.ErrNotFound},
		{"already exists", status.Error(codes.AlreadyExists, `table "t" already exists`), bigtable.ErrExists},
		{"increment", status.Error(codes.Unknown, "increment on non-64-bit value"), bigtable.ErrInvalidIncrement},
		{"bad filter", status.Error(codes.InvalidArgument, "Error in field 'family_name_regex_filter' : bad"), bigtable.ErrInvalidFilter},
		{"bad timestamp", status.Error(codes.InvalidArgument, "invalid timestamp 7"), bigtable.ErrInvalidTimestamp},
		{"canceled", status.Error(codes.Canceled, "context canceled"), context.Canceled},
		{"deadline", status.Error(codes.DeadlineExceeded, "deadline exceeded"), context.DeadlineExceeded},
		{"other", status.Error(codes.Unavailable, "connection refused"), nil},
		{"not a status", errors.New("boom"), nil},
	}
	sentinels := []error{bigtable.ErrUnknownFamily, bigtable.ErrNotFound, bigtable.ErrExists, bigtable.ErrInvalidIncrement,
		bigtable.ErrInvalidFilter, bigtable.ErrInvalidTimestamp, context.Canceled, context.DeadlineExceeded}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := wrapErr("do something", tc.err)
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tc.want) {
					t.Errorf("errors.Is(%q, %v) = %v, want %v", err, s, got, !got)
				}
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("wrapped error %q lost the original", err)
			}
			if c := status.Code(tc.err); c != codes.Unknown && status.Code(err) != c {
				t.Errorf("status.Code(%q) = %v, want %v", err, status.Code(err), c)
			}
		})
	}
	if wrapErr("x", nil) != nil {
		t.Error("wrapErr(nil) != nil")
	}
}
