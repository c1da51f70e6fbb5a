package rank

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// exactPageRank solves r = (1-d)/N + d (M r) directly, with M the column
// stochastic link matrix whose dangling columns are 1/N: an independent
// computation (a dense LU solve, no iteration) to hold PageRank to.
func exactPageRank(t *testing.T, n int, edges [][2]int32) []float64 {
	t.Helper()
	out := make([]map[int]bool, n)
	for i := range out {
		out[i] = map[int]bool{}
	}
	for _, e := range edges {
		if e[0] != e[1] {
			out[e[0]][int(e[1])] = true
		}
	}
	a := mat.NewDense(n, n, nil)
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			var m float64
			switch {
			case len(out[u]) == 0:
				m = 1 / float64(n)
			case out[u][v]:
				m = 1 / float64(len(out[u]))
			}
			id := 0.0
			if u == v {
				id = 1
			}
			a.Set(v, u, id-Damping*m)
		}
	}
	b := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		b.SetVec(i, (1-Damping)/float64(n))
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatal(err)
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = x.AtVec(i)
	}
	return r
}

func randomGraph(seed uint64, n, m int) [][2]int32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	edges := make([][2]int32, m)
	for i := range edges {
		// Skewed targets, some self-links, some nodes left dangling.
		to := int32(rng.IntN(n) * rng.IntN(n) / n)
		from := int32(rng.IntN(n - n/5))
		edges[i] = [2]int32{from, to}
	}
	return edges
}

func TestPageRankMatchesExactSolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		n, m int
	}{
		{"one page", 1, 0},
		{"no links", 5, 0},
		{"small", 12, 30},
		{"medium", 80, 400},
		{"dense", 40, 1200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edges := randomGraph(uint64(tc.n*7+tc.m), tc.n, tc.m)
			g := FromEdges(tc.n, edges)
			got, iter := g.PageRank()
			want := exactPageRank(t, tc.n, edges)
			var sum float64
			for i := range got {
				sum += got[i]
				if d := math.Abs(got[i] - want[i]); d > 1e-9 {
					t.Errorf("rank of node %d = %.15g, exact solve %.15g (off by %.3g > 1e-9)", i, got[i], want[i], d)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("ranks sum to %.15g, want 1", sum)
			}
			if iter >= MaxIter {
				t.Errorf("PageRank ran %d iterations: it did not converge", iter)
			}
		})
	}
}

func TestPageRankCycleIsUniform(t *testing.T) {
	g := FromEdges(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 2}})
	r, _ := g.PageRank()
	for i, v := range r {
		if math.Abs(v-0.25) > 1e-12 {
			t.Errorf("rank of node %d of a 4-cycle = %.15g, want 0.25", i, v)
		}
	}
}
