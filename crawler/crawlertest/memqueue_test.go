package crawlertest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/webtable/webtable/crawlstore"
)

// TestHostQueueModel: a hostQueue under random pushes and deletes (of
// entries present, deleted before, or never pushed) holds what a plain
// slice that cuts each deleted entry out holds, read from any position,
// across many compactions.
func TestHostQueueModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var q hostQueue
		var model []crawlstore.Entry
		next := 0
		pos := func(i int) string { return fmt.Sprintf("%08d", i) }
		for step := range 3000 {
			switch r := rng.IntN(10); {
			case r < 5:
				next += 1 + rng.IntN(3)
				e := crawlstore.Entry{URL: fmt.Sprintf("http://h/%d", next), Frontier: pos(next)}
				q.push(e)
				model = append(model, e)
			case r < 9 && len(model) > 0:
				// mostly near the front, as a crawl deletes
				i := min(len(model)-1, rng.IntN(8))
				if rng.IntN(4) == 0 {
					i = rng.IntN(len(model))
				}
				q.delete(model[i].Frontier)
				model = slices.Delete(model, i, i+1)
			default:
				p := pos(rng.IntN(next + 2)) // maybe absent, maybe gone
				q.delete(p)
				model = slices.DeleteFunc(model, func(e crawlstore.Entry) bool { return e.Frontier == p })
			}
			from := pos(rng.IntN(next + 2))
			var got []crawlstore.Entry
			q.all(from, func(e crawlstore.Entry) bool { got = append(got, e); return true })
			var want []crawlstore.Entry
			for _, e := range model {
				if e.Frontier >= from {
					want = append(want, e)
				}
			}
			if !slices.Equal(got, want) || q.len() != len(model) {
				t.Fatalf("seed %d step %d: from %s got %d entries (len %d), want %d (len %d)", seed, step, from, len(got), q.len(), len(want), len(model))
			}
			if 2*q.ngone > len(q.entries) {
				t.Fatalf("seed %d step %d: %d of %d entries deleted and not cut out", seed, step, q.ngone, len(q.entries))
			}
		}
	}
}
