package difftest

import (
	"context"
	"testing"

	cbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
)

// TestLimitRowsLikeCloudClient pins LimitRows(n) for n <= 0, which the random
// sequences leave out: the Cloud client reads no rows for LimitRows(0) (it
// stops before asking the server) and fails for a negative limit. Code
// ported from Cloud Bigtable must see the same.
func TestLimitRowsLikeCloudClient(t *testing.T) {
	ctx := context.Background()
	r := newReference(t)
	s := newOurStore(t)
	want, err := r.newTable(ctx, freshName("limit"))
	if err != nil {
		t.Fatal(err)
	}
	gotf, err := s.factory()(ctx, freshName("limit"))
	if err != nil {
		t.Fatal(err)
	}
	got := gotf.(*ourTable)
	for _, row := range []string{"a", "b"} {
		o := op{kind: opApply, row: row, muts: []mutOp{{kind: mSet, fam: "f", qual: "q", ts: 1000, value: "v"}}}
		if res := want.exec(ctx, o); res.Err {
			t.Fatalf("reference %s: %s", o, res.errText)
		}
		if res := got.exec(ctx, o); res.Err {
			t.Fatalf("ours %s: %s", o, res.errText)
		}
	}
	for _, n := range []int64{0, -1} {
		wantRows := 0
		wantErr := want.tbl.ReadRows(ctx, cbt.InfiniteRange(""), func(cbt.Row) bool { wantRows++; return true }, cbt.LimitRows(n))
		gotRows := 0
		gotErr := got.s.table(got.name).ReadRows(ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool { gotRows++; return true }, bigtable.LimitRows(n))
		if gotRows != wantRows || (gotErr != nil) != (wantErr != nil) {
			t.Errorf("ReadRows(InfiniteRange(\"\"), LimitRows(%d)) over 2 rows: ours %d rows, error %v; Cloud client %d rows, error %v",
				n, gotRows, gotErr, wantRows, wantErr)
		}
	}
}
