package rank

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// The columns the job writes.
const (
	ColPage  = "page"
	ColHosts = "hosts"
)

// Job is the rank job: PageRank over the link graph of the fetched pages
// (rows with contents), read from the anchor family in one scan, written
// as rank:page and rank:hosts. A zero Job is ready to use; it keeps the
// graph and the ranks between Prepare and the splits.
type Job struct {
	keys     []string             // node -> row key, ascending
	rank     []float64            // node -> rank
	hosts    []int32              // node -> distinct hosts linking to it
	oldRank  []float64            // node -> stored rank:page, NaN when absent or not canonical
	oldHosts []int32              // node -> stored rank:hosts, -1 when absent
	oldTS    []webtable.Timestamp // node -> newest timestamp of its stored rank cells
	ts       webtable.Timestamp
	Iter     int // iterations the last PageRank ran
	Edges    int64
	// ScanTime, GraphTime and RankTime are how long Prepare's scan,
	// graph building and PageRank took.
	ScanTime, GraphTime, RankTime time.Duration
}

// Name is "rank".
func (*Job) Name() string { return "rank" }

// Family is webtable.FamilyRank.
func (*Job) Family() string { return webtable.FamilyRank }

// BatchRows is how many rows one bulk write carries.
const BatchRows = 512

// errMissingReferrer marks anchors naming a referrer that is no fetched
// page of the table.
var errMissingReferrer = errors.New("rank: anchors name rows that are not fetched pages")

// Prepare scans the table once, building the graph, and computes the
// ranks. Every process computes the whole graph, whatever its shard: a
// rank depends on every page.
func (j *Job) Prepare(ctx context.Context, env *jobs.Env) error {
	t0 := time.Now()
	b, err := scan(ctx, env)
	if err != nil {
		return err
	}
	env.Counts.Add(b.rows, 0, 0, b.rows-int64(len(b.keys)))
	j.ScanTime = time.Since(t0)
	t0 = time.Now()
	g, hosts, bad := b.finish()
	j.GraphTime = time.Since(t0)
	for _, v := range bad {
		env.Bad(b.keys[v], errMissingReferrer)
	}
	j.keys, j.hosts, j.oldRank, j.oldHosts, j.oldTS, j.ts = b.keys, hosts, b.oldRank, b.oldHosts, b.oldTS, b.maxTS
	t0 = time.Now()
	j.rank, j.Iter = g.PageRank()
	j.RankTime = time.Since(t0)
	j.Edges = g.Edges()
	env.Logf("%d pages, %d links, %d iterations; scan %v, graph %v, PageRank %v", g.N(), g.Edges(), j.Iter,
		j.ScanTime.Round(time.Millisecond), j.GraphTime.Round(time.Millisecond), j.RankTime.Round(time.Millisecond))
	return nil
}

// Ranks returns the row keys and their ranks, for tests and readers.
func (j *Job) Ranks() ([]string, []float64) { return j.keys, j.rank }

// RunSplit writes the ranks of the pages in s that changed.
func (j *Job) RunSplit(ctx context.Context, env *jobs.Env, s jobs.Split) error {
	lo, hi := s.Within(j.keys)
	var batch []webtable.DerivedWrite
	flush := func() error {
		err := env.W.WriteDerived(ctx, batch)
		batch = batch[:0]
		return err
	}
	var written, unchanged int64
	for v := lo; v < hi; v++ {
		if !env.Full && j.oldRank[v] == j.rank[v] && j.oldHosts[v] == j.hosts[v] {
			unchanged++
			continue
		}
		written++
		// NB: no read of the row unless a stored cell is newer than the
		// inputs (another version wrote it): the cells' timestamp only
		// grows with the inputs, the family keeps one version and both
		// cells are written at one timestamp, so the scan saw the one
		// version there is, and a blind write replaces it, pipelined (a
		// delete that reads costs badger a sort of the bulk's pending
		// writes: 16 s instead of 1 at 20,000 pages).
		var del []string
		blind := j.oldTS[v] <= j.ts
		if !blind {
			del = []string{ColPage, ColHosts}
		}
		batch = append(batch, webtable.DerivedWrite{
			Key: j.keys[v], Family: webtable.FamilyRank, DeleteColumns: del,
			Cells: []webtable.DerivedCell{
				{Qualifier: ColPage, Timestamp: j.ts, Value: []byte(FormatRank(j.rank[v])), Blind: blind, Replaces: j.oldTS[v]},
				{Qualifier: ColHosts, Timestamp: j.ts, Value: strconv.AppendInt(nil, int64(j.hosts[v]), 10), Blind: blind, Replaces: j.oldTS[v]},
			},
		})
		if len(batch) == BatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	env.Counts.Add(0, written, unchanged, 0)
	return flush()
}

// FormatRank is the stored form of a rank: the shortest decimal that
// reads back as r, without an exponent.
func FormatRank(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// ParseRank reads a stored rank:page; ok is false for a value not in the
// form FormatRank writes (another version's), which is to be rewritten.
func ParseRank(s string) (float64, bool) {
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(r) || FormatRank(r) != s {
		return 0, false
	}
	return r, true
}

// scan reads the graph: the run's splits in parallel (env.Workers at
// once), each into a builder of its own, merged in key order.
func scan(ctx context.Context, env *jobs.Env) (*builder, error) {
	sel := webtable.Select{
		Names:   []string{webtable.FamilyAnchor},
		Columns: []string{"contents:sha256", "rank:" + ColPage, "rank:" + ColHosts},
	}
	splits := env.Splits
	if len(splits) == 0 {
		splits = []jobs.Split{{}}
	}
	parts := make([]*builder, len(splits))
	errs := make([]error, len(splits))
	// NB: one interner for all parts: each part's pages are linked from
	// everywhere, so interners of their own held the referrers once per
	// part (4.9 GB of RssAnon at 1M pages in 20 tablets).
	in := newInterner()
	next := make(chan int, len(splits))
	for i := range splits {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range max(1, min(env.Workers, len(splits))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b := newBuilder(in)
				errs[i] = env.W.ScanSelect(ctx, splits[i].Start, splits[i].End, sel, func(r webtable.Row) bool {
					b.row(r)
					return true
				})
				parts[i] = b
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := merge(parts)
	out.refList = in.list()
	return out, nil
}

// internShards is how many locks the interner's map is split under, so
// that the workers of a parallel scan seldom wait for each other.
const internShards = 16

// interner gives each distinct referrer an id, safe for concurrent use:
// the referrer at index i of shard s has id i*internShards+s.
//
// NB: its maps are keyed by two 64-bit hashes of the referrer, not by the
// string: a lookup then touches the map's slot alone, not the string's
// bytes elsewhere in the heap, and the maps hold no pointer for the
// collector to scan. At 1M pages, string keys made the lookups 22% of the
// job's CPU (map access, and memeqbody comparing keys). Two referrers
// share an id only if both hashes collide, about n^2/2^129 for n
// referrers (1e-26 at a million).
type interner struct {
	seeds  [2]maphash.Seed
	shards [internShards]internShard
}

type internShard struct {
	mu   sync.Mutex
	ids  map[[2]uint64]int32
	list []string
}

func newInterner() *interner {
	in := &interner{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	for i := range in.shards {
		in.shards[i].ids = map[[2]uint64]int32{}
	}
	return in
}

// intern appends the ids of refs to dst.
func (in *interner) intern(dst []int32, refs []string) []int32 {
	for _, ref := range refs {
		h := [2]uint64{maphash.String(in.seeds[0], ref), maphash.String(in.seeds[1], ref)}
		s := int32(h[0] % internShards)
		sh := &in.shards[s]
		sh.mu.Lock()
		id, ok := sh.ids[h]
		if !ok {
			id = int32(len(sh.list))*internShards + s
			sh.ids[h] = id
			sh.list = append(sh.list, strings.Clone(ref))
		}
		sh.mu.Unlock()
		dst = append(dst, id)
	}
	return dst
}

// list returns the referrers by id ("" for the ids no referrer has),
// dropping the maps.
func (in *interner) list() []string {
	n := 0
	for s := range in.shards {
		n = max(n, len(in.shards[s].list)*internShards)
	}
	out := make([]string, n)
	for s := range in.shards {
		for i, ref := range in.shards[s].list {
			out[i*internShards+s] = ref
		}
		in.shards[s] = internShard{}
	}
	return out
}

// merge joins builders of consecutive key ranges into one, re-interning
// each part's referrers.
func merge(parts []*builder) *builder {
	if len(parts) == 1 {
		return parts[0]
	}
	out := &builder{off: []int64{0}}
	var edges, nodes int
	for _, p := range parts {
		edges += len(p.src)
		nodes += len(p.keys)
	}
	out.src = make([]int32, 0, edges)
	out.off = slices.Grow(out.off, nodes)
	out.keys = make([]string, 0, nodes)
	for _, p := range parts {
		base := int64(len(out.src))
		out.src = append(out.src, p.src...)
		for _, o := range p.off[1:] {
			out.off = append(out.off, base+o)
		}
		out.rows += p.rows
		out.keys = append(out.keys, p.keys...)
		out.oldRank = append(out.oldRank, p.oldRank...)
		out.oldHosts = append(out.oldHosts, p.oldHosts...)
		out.oldTS = append(out.oldTS, p.oldTS...)
		out.maxTS = max(out.maxTS, p.maxTS)
		*p = builder{}
	}
	return out
}

// builder gathers the graph from the rows of one scan.
type builder struct {
	rows     int64
	keys     []string
	off      []int64
	src      []int32 // referrer ids (interned), until finish maps them to nodes
	in       *interner
	refList  []string // set by scan once every part is read
	anchors  []string // the row being read's referrers (reused)
	oldRank  []float64
	oldHosts []int32
	oldTS    []webtable.Timestamp
	maxTS    webtable.Timestamp
}

func newBuilder(in *interner) *builder {
	return &builder{off: []int64{0}, in: in}
}

func (b *builder) row(r webtable.Row) {
	b.rows++
	node := false
	oldRank, oldHosts := math.NaN(), int32(-1)
	var oldTS webtable.Timestamp
	for _, c := range r.Cells {
		switch c.Family {
		case webtable.FamilyContents:
			node = true
			b.maxTS = max(b.maxTS, c.Timestamp)
		case webtable.FamilyRank:
			oldTS = max(oldTS, c.Timestamp)
			switch c.Qualifier {
			case ColPage:
				if v, ok := ParseRank(string(c.Value)); ok {
					oldRank = v
				}
			case ColHosts:
				if n, err := strconv.ParseInt(string(c.Value), 10, 32); err == nil && strconv.FormatInt(n, 10) == string(c.Value) {
					oldHosts = int32(n)
				}
			}
		}
	}
	if !node {
		return // links to a page not fetched: not part of the graph
	}
	b.anchors = b.anchors[:0]
	for _, c := range r.Cells {
		if c.Family != webtable.FamilyAnchor {
			continue
		}
		b.maxTS = max(b.maxTS, c.Timestamp)
		b.anchors = append(b.anchors, c.Qualifier)
	}
	b.src = b.in.intern(b.src, b.anchors)
	b.keys = append(b.keys, r.Key)
	b.off = append(b.off, int64(len(b.src)))
	b.oldRank = append(b.oldRank, oldRank)
	b.oldHosts = append(b.oldHosts, oldHosts)
	b.oldTS = append(b.oldTS, oldTS)
}

// finish maps referrers to nodes, drops self-links and anchors from rows
// that are not fetched pages, and counts each node's distinct referring
// hosts. It returns the graph, the host counts and the nodes that had
// anchors naming no fetched page.
func (b *builder) finish() (*Graph, []int32, []int) {
	n := len(b.keys)
	refNode := make([]int32, len(b.refList))
	refHost := make([]int32, len(b.refList))
	hostIDs := map[string]int32{}
	for i, ref := range b.refList {
		refNode[i] = -1
		if ref == "" {
			continue // an id no referrer has (see interner)
		}
		if k, err := urlkey.Key("http://" + ref); err == nil {
			if v, found := slices.BinarySearch(b.keys, k); found {
				refNode[i] = int32(v)
			}
		}
		h := ref
		if i := strings.IndexAny(h, "/?"); i >= 0 {
			h = h[:i]
		}
		id, ok := hostIDs[h]
		if !ok {
			id = int32(len(hostIDs))
			hostIDs[h] = id
		}
		refHost[i] = id
	}
	b.refList = nil
	g := &Graph{Off: make([]int64, n+1), OutDeg: make([]int32, n)}
	hosts := make([]int32, n)
	var bad []int
	var seen []int32
	w := int64(0)
	for v := 0; v < n; v++ {
		missing := false
		seen = seen[:0]
		for _, id := range b.src[b.off[v]:b.off[v+1]] {
			u := refNode[id]
			if u == int32(v) {
				continue // a self-link
			}
			seen = append(seen, refHost[id])
			if u < 0 {
				missing = true
				continue
			}
			b.src[w] = u
			w++
			g.OutDeg[u]++
		}
		g.Off[v+1] = w
		slices.Sort(seen)
		hosts[v] = int32(len(slices.Compact(seen)))
		if missing {
			bad = append(bad, v)
		}
	}
	g.Src = slices.Clip(b.src[:w])
	b.src, b.off = nil, nil
	return g, hosts, bad
}

// check that Job is a jobs.Job.
var _ jobs.Job = (*Job)(nil)
