package dups

import (
	"slices"
)

// MaxDistance is the largest Hamming distance between the simhashes of
// two pages taken for near-duplicates. Measured on the planted web of
// TestPlantedDuplicates (300 articles sharing one template, 180 planted
// copies), with words as shingles: recall 0.67 at 1, 0.78 at 3, 0.89 at
// 4, 0.96 at 6, 1.0 at 8, precision 1.0 throughout; 3-word shingles
// reached only 0.46 at 3 and 0.73 at 8.
const MaxDistance = 6

// maxBucket bounds the pages compared pairwise in one bucket of equal
// blocks; past it each page is compared with the next maxBucket
// in hash order only, so a template shared by many pages costs linear time.
const maxBucket = 512

// Page is what clustering needs of a page.
type Page struct {
	Simhash uint64
	SHA256  string // "" when unknown
}

// Cluster groups pages that are duplicates: equal SHA256, or simhashes
// within maxDist bits (a page whose text has no word, simhash 0, is a
// duplicate only of the same bytes) (two such hashes agree on at least one of maxDist+1
// blocks of bits, so only pages sharing a block are compared). It returns
// each page's group, the index of its root.
func Cluster(pages []Page, maxDist int) []int {
	f := newForest(len(pages))
	f.unionSums(pages)
	var idx []int
	for i, p := range pages {
		if p.Simhash != 0 {
			idx = append(idx, i)
		}
	}
	nblk := min(max(maxDist+1, 1), 64)
	for blk := 0; blk < nblk; blk++ {
		f.unionBlock(pages, idx, 64*blk/nblk, 64*(blk+1)/nblk, maxDist)
	}
	out := make([]int, len(pages))
	for i := range out {
		out[i] = f.find(i)
	}
	return out
}

// forest is a union-find forest over page indexes: each page's parent,
// a root its own; a group's root is its smallest index.
type forest []int

// newForest is a forest of n pages, each alone.
func newForest(n int) forest {
	f := make(forest, n)
	for i := range f {
		f[i] = i
	}
	return f
}

// find returns the root of i's group, halving the path on the way.
func (f forest) find(i int) int {
	for f[i] != i {
		f[i] = f[f[i]]
		i = f[i]
	}
	return i
}

// union joins the groups of a and b.
func (f forest) union(a, b int) {
	ra, rb := f.find(a), f.find(b)
	if ra != rb {
		f[max(ra, rb)] = min(ra, rb)
	}
}

// unionSums joins the pages of equal (known) SHA256.
func (f forest) unionSums(pages []Page) {
	bySum := map[string]int{}
	for i, p := range pages {
		if p.SHA256 == "" {
			continue
		}
		if j, ok := bySum[p.SHA256]; ok {
			f.union(i, j)
		} else {
			bySum[p.SHA256] = i
		}
	}
}

// unionBlock joins the pages of idx whose simhashes agree on bits
// [bitLo, bitHi) and lie within maxDist bits of each other; it sorts idx
// by that block, and compares each page with the next maxBucket of its
// bucket only.
func (f forest) unionBlock(pages []Page, idx []int, bitLo, bitHi, maxDist int) {
	mask := uint64(1)<<(bitHi-bitLo) - 1
	if bitHi-bitLo == 64 {
		mask = ^uint64(0)
	}
	shift := uint(bitLo)
	block := func(i int) uint64 { return pages[i].Simhash >> shift & mask }
	slices.SortFunc(idx, func(a, b int) int {
		if x, y := block(a), block(b); x != y {
			if x < y {
				return -1
			}
			return 1
		}
		if x, y := pages[a].Simhash, pages[b].Simhash; x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return a - b
	})
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && block(idx[hi]) == block(idx[lo]) {
			hi++
		}
		for a := lo; a < hi; a++ {
			for b := a + 1; b < hi && b <= a+maxBucket; b++ {
				if Distance(pages[idx[a]].Simhash, pages[idx[b]].Simhash) <= maxDist {
					f.union(idx[a], idx[b])
				}
			}
		}
		lo = hi
	}
}
