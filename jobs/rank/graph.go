package rank

import (
	"math"
	"slices"
)

// Graph is a link graph in compressed sparse row form, by target: the
// referrers of node v are Src[Off[v]:Off[v+1]]. Nodes are 0..N-1, in row
// key order; OutDeg[u] counts the edges leaving u.
type Graph struct {
	Off    []int64
	Src    []int32
	OutDeg []int32
}

// N is the number of nodes.
func (g *Graph) N() int { return len(g.Off) - 1 }

// Edges is the number of edges.
func (g *Graph) Edges() int64 { return g.Off[len(g.Off)-1] }

// FromEdges builds a graph of n nodes from edges (from, to), dropping
// self-links and repeated edges; for tests and the benchmark baseline.
func FromEdges(n int, edges [][2]int32) *Graph {
	in := make([][]int32, n)
	for _, e := range edges {
		if e[0] != e[1] {
			in[e[1]] = append(in[e[1]], e[0])
		}
	}
	g := &Graph{Off: make([]int64, n+1), OutDeg: make([]int32, n)}
	for v := range in {
		slices.Sort(in[v])
		in[v] = slices.Compact(in[v])
		g.Src = append(g.Src, in[v]...)
		g.Off[v+1] = int64(len(g.Src))
		for _, u := range in[v] {
			g.OutDeg[u]++
		}
	}
	return g
}

// The parameters of PageRank, as issue 33 fixes them.
const (
	Damping   = 0.85
	Tolerance = 1e-9 // stop when the L1 change of an iteration is below it
	MaxIter   = 100
)

// PageRank computes the PageRank of every node: damping Damping, the rank
// of dangling nodes (no out-edges) spread uniformly over all nodes, until
// the L1 norm of an iteration's change is below Tolerance or MaxIter
// iterations. The ranks sum to 1 (to rounding). It returns the ranks and
// the iterations run.
func (g *Graph) PageRank() ([]float64, int) {
	n := g.N()
	if n == 0 {
		return nil, 0
	}
	r := make([]float64, n)
	next := make([]float64, n)
	contrib := make([]float64, n)
	for i := range r {
		r[i] = 1 / float64(n)
	}
	inv := make([]float64, n)
	for u, d := range g.OutDeg {
		if d > 0 {
			inv[u] = 1 / float64(d)
		}
	}
	iter := 0
	for iter < MaxIter {
		iter++
		var dangling float64
		for u, ru := range r {
			if g.OutDeg[u] == 0 {
				dangling += ru
			}
			contrib[u] = ru * inv[u]
		}
		base := (1-Damping)/float64(n) + Damping*dangling/float64(n)
		var diff float64
		for v := 0; v < n; v++ {
			var s float64
			for _, u := range g.Src[g.Off[v]:g.Off[v+1]] {
				s += contrib[u]
			}
			nv := base + Damping*s
			diff += math.Abs(nv - r[v])
			next[v] = nv
		}
		r, next = next, r
		if diff < Tolerance {
			break
		}
	}
	return r, iter
}
