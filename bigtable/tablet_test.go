package bigtable

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestTabletsAndSampleRowKeys(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	for _, r := range []string{"a", "b", "c"} {
		m := NewMutation()
		m.Set("f", "q", 1, make([]byte, 1000))
		m.Set("f", "q", 2, make([]byte, 1000))
		mustApply(t, tbl, r, m)
	}
	tablets, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(tablets) != 1 || tablets[0].Start != "" || tablets[0].End != "" || tablets[0].Rows != 3 {
		t.Errorf("Tablets = %+v", tablets)
	}
	if b := tablets[0].Bytes; b < 6000 || b > 8000 {
		t.Errorf("Tablets bytes = %d, want about 6000", b)
	}
	keys, err := tbl.SampleRowKeys(ctx)
	if err != nil || !slices.Equal(keys, []string{""}) {
		t.Errorf("SampleRowKeys = %q, %v", keys, err)
	}
	if _, err := db.Tablets(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Tablets of missing table = %v", err)
	}
	if _, err := db.Open("nope").SampleRowKeys(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("SampleRowKeys of missing table = %v", err)
	}
}
