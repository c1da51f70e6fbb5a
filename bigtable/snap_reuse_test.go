package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPointReadsReuseIterator reads rows one at a time, in key order
// (where a read starts from the position the last one left the shared
// iterator in) and in random order, over keys that are prefixes of each
// other and rows that do not exist, interleaved with reads of another
// table and with writes, and checks every row against what was written.
func TestPointReadsReuseIterator(t *testing.T) {
	db := openTestDB(t)
	a := db.mustTable("a", "f", "g")
	b := db.mustTable("b", "f")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"\x00", "\x01", "a", "b", "\xff"}
	var keys []string
	for _, x := range alphabet {
		keys = append(keys, x)
		for _, y := range alphabet {
			keys = append(keys, x+y)
			keys = append(keys, x+y+"a")
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	want := map[string][]string{} // row -> its cells as cellStrings gives them
	write := func(tbl *Table, row string) []string {
		m := NewMutation()
		var cells []string
		for _, fam := range []string{"f", "g"} {
			if tbl == b && fam == "g" {
				continue
			}
			// NB: qualifiers that need escaping, and one that is a
			// prefix of another: a read reuses the column strings of
			// the read before when the escaped bytes match.
			for q, qual := range []string{"0", "0\x00", "1"}[:rng.IntN(4)] {
				v := fmt.Sprintf("%s/%s/%d", row, fam, q)
				m.Set(fam, qual, 1, []byte(v))
				cells = append(cells, row+" "+fam+":"+qual+"@1="+v)
			}
		}
		if len(cells) > 0 {
			mustApply(t, tbl, row, m)
		}
		return cells
	}
	for _, k := range keys {
		if rng.IntN(3) > 0 {
			want[k] = write(a, k)
		}
		write(b, k)
	}
	check := func(order []string, other bool) {
		t.Helper()
		for _, k := range order {
			r, err := a.ReadRow(ctx, k)
			if err != nil {
				t.Fatalf("ReadRow(%q) = %v", k, err)
			}
			var got []string
			if r != nil {
				got = cellStrings([]Row{r})
			}
			if !slices.Equal(got, want[k]) {
				t.Fatalf("ReadRow(%q) = %q, want %q", k, got, want[k])
			}
			if other && rng.IntN(4) == 0 {
				if _, err := b.ReadRow(ctx, keys[rng.IntN(len(keys))]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for round := range 6 {
		order := slices.Clone(keys)
		switch round % 3 {
		case 1: // every other row, in order
			order = order[:0]
			for i := round % 2; i < len(keys); i += 2 {
				order = append(order, keys[i])
			}
		case 2:
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		if round == 0 { // each row twice in a row
			order = order[:0]
			for _, k := range keys {
				order = append(order, k, k)
			}
		}
		check(order, round >= 3)
		// A write makes the next reads take a new snapshot.
		k := fmt.Sprintf("%s\x00%d", keys[rng.IntN(len(keys))], round) // a new row
		if cells := write(a, k); len(cells) > 0 {
			want[k] = cells
		}
		keys = append(keys, k)
		slices.Sort(keys)
	}
}
