package archive

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestIndexSpills: an index larger than memory allows is sorted through
// temporary runs and comes out as a plain sort would give it.
func TestIndexSpills(t *testing.T) {
	for _, limit := range []int{1 << 30, 1000, 1} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			x := index{limit: limit}
			var want []string
			for range 500 {
				l := fmt.Sprintf("com,example)/%d 2026 {}\n", rng.IntN(300)) // with duplicates
				want = append(want, l)
				if err := x.add(l); err != nil {
					t.Fatal(err)
				}
			}
			if limit < 1<<30 && len(x.runs) == 0 {
				t.Fatalf("limit %d: nothing spilled", limit)
			}
			var got strings.Builder
			if err := x.writeTo(&got); err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if got.String() != strings.Join(want, "") {
				t.Errorf("limit %d: merged index differs from a plain sort", limit)
			}
			if len(x.runs) != 0 {
				t.Errorf("%d temporary runs left open", len(x.runs))
			}
		})
	}
}
