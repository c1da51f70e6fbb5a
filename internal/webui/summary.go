package webui

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/webtable"
)

// maxHosts bounds the hosts the summary keeps for the domain tree, so that
// its memory stays bounded on a crawl of millions of hosts; beyond it the
// tree says it is incomplete (rows stay reachable by domain). A variable
// for tests.
var maxHosts = 200_000

// fetchBuckets is the number of bars of the fetch chart.
const fetchBuckets = 60

// summary is what needs a scan of the whole table: counts, the domain tree
// and the fetch chart. It is built in the background and replaced whole.
type summary struct {
	Built   time.Time     // when the build finished
	Took    time.Duration // how long it took
	Stats   webtable.Stats
	Tree    map[string]*node // by reversed name ("com.cnn"); "" is the root
	Partial bool             // more than maxHosts hosts: the tree lacks some
	Fetches []bucket         // fetches over time, oldest first
	Top     []rankedPage     // the pages of highest rank:page (index rank), best first
	Err     error            // why the build failed
}

// node is a domain of the tree: a reversed name and its subdomains.
type node struct {
	Key      string // reversed name, "com.cnn"; "" for the root
	Name     string // the domain, "cnn.com"
	Rows     int64  // rows of its hosts and their subdomains
	Host     bool   // a host of its own (rows whose host is exactly it)
	IP       bool   // an IP address: no subdomains
	Children []string
}

// bucket is one bar of the fetch chart: fetches in [Start, End).
type bucket struct {
	Start, End time.Time
	Count      int64
}

// summaries holds the newest summary and the state of the build.
type summaries struct {
	mu       sync.Mutex
	cur      *summary
	building bool
	started  time.Time
	ready    chan struct{} // closed when the first summary exists
}

// current returns the newest summary (nil before the first one exists),
// whether a build is running and when it started.
func (ui *UI) current() (*summary, bool, time.Time) {
	ui.sum.mu.Lock()
	defer ui.sum.mu.Unlock()
	return ui.sum.cur, ui.sum.building, ui.sum.started
}

// refresh starts a build unless one is running.
func (ui *UI) refresh() { ui.startBuild(0) }

// startBuild starts a build unless one is running or the last one started
// less than gap ago.
func (ui *UI) startBuild(gap time.Duration) {
	ui.sum.mu.Lock()
	defer ui.sum.mu.Unlock()
	if ui.sum.building || ui.ctx.Err() != nil {
		return
	}
	if gap > 0 && !ui.sum.started.IsZero() && ui.opts.Now().Sub(ui.sum.started) < gap {
		return
	}
	ui.sum.building, ui.sum.started = true, ui.opts.Now()
	ui.wg.Add(1)
	go func() {
		defer ui.wg.Done()
		if ui.beforeBuild != nil {
			ui.beforeBuild(ui.ctx)
		}
		s := ui.build(ui.ctx)
		if s.Err != nil && ui.ctx.Err() == nil {
			ui.opts.Logf("webui: building the summary: %v", s.Err)
		}
		ui.sum.mu.Lock()
		defer ui.sum.mu.Unlock()
		ui.sum.building = false
		if ui.ctx.Err() == nil {
			if ui.sum.cur == nil {
				close(ui.sum.ready)
			}
			ui.sum.cur = s
		}
	}()
}

// minAskedRebuild is the shortest time between the start of a build and a
// new one that a request asks for (?refresh=1): asking is free for the
// client, a build scans the whole table.
const minAskedRebuild = time.Minute

// refreshAsked starts a build for a request that asks for one, unless a
// build started less than minAskedRebuild ago.
func (ui *UI) refreshAsked() { ui.startBuild(minAskedRebuild) }

// rebuildFactor bounds the time spent building summaries: a summary is
// rebuilt no sooner than this many times its own build time after it, so a
// table that takes a minute to scan is scanned at most one minute in ten.
const rebuildFactor = 10

// fresh returns the current summary and starts a new build when it is
// older than SummaryMaxAge and than rebuildFactor times its build time.
func (ui *UI) fresh() (*summary, bool, time.Time) {
	s, building, started := ui.current()
	if !building && (s == nil || ui.opts.Now().Sub(s.Built) > max(ui.opts.SummaryMaxAge, rebuildFactor*s.Took)) {
		ui.refresh()
		s, building, started = ui.current()
	}
	return s, building, started
}

// WaitSummary blocks until a summary exists or ctx ends (benchmarks and
// tests use it; views never wait).
func (ui *UI) WaitSummary(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ui.sum.ready:
		s, _, _ := ui.current()
		return s.Err
	}
}

// build scans the table: counts (webtable.Stats), the hosts of every row
// (keys only) and the fetch times.
func (ui *UI) build(ctx context.Context) *summary {
	start := ui.opts.Now()
	s := &summary{Tree: map[string]*node{"": {}}}
	var err error
	if s.Stats, err = ui.w.Stats(ctx, nil); err != nil {
		s.Err = err
		return s
	}
	hosts := map[string]int64{}
	var last string
	err = ui.w.Scan(ctx, nil, webtable.Query{KeysOnly: true}, 0, func(r webtable.Row) bool {
		h := hostOfKey(r.Key)
		if h == last {
			hosts[h]++
			return true
		}
		if _, ok := hosts[h]; !ok && len(hosts) >= maxHosts {
			s.Partial = true
			return true
		}
		hosts[h]++
		last = h
		return true
	})
	if err != nil {
		s.Err = err
		return s
	}
	for h, n := range hosts {
		s.addHost(h, n)
	}
	for _, n := range s.Tree {
		slices.Sort(n.Children)
	}
	if s.Fetches, err = ui.fetchChart(ctx); err != nil {
		s.Err = err
		return s
	}
	if s.Top, err = ui.topRanks(ctx); err != nil {
		s.Err = err
		return s
	}
	s.Built = ui.opts.Now()
	s.Took = s.Built.Sub(start)
	return s
}

// hostOfKey is the reversed host of a row key, without its port:
// com.cnn.www/a -> com.cnn.www; [::1]:8080/ -> [::1].
func hostOfKey(key string) string {
	if strings.HasPrefix(key, "[") {
		if i := strings.IndexByte(key, ']'); i >= 0 {
			return key[:i+1]
		}
		return key
	}
	if i := strings.IndexAny(key, ":/"); i >= 0 {
		return key[:i]
	}
	return key
}

// isIP reports whether a reversed host is an IP address (kept as it is in
// row keys, not reversed).
func isIP(h string) bool {
	return net.ParseIP(strings.Trim(h, "[]")) != nil
}

// forward turns a reversed name into the domain name: com.cnn -> cnn.com.
func forward(reversed string) string {
	if isIP(reversed) {
		return reversed
	}
	labels := strings.Split(reversed, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".")
}

// addHost adds a host's rows to the tree: to its node and every ancestor.
func (s *summary) addHost(h string, rows int64) {
	var chain []string // the nodes from the top down: com, com.cnn, com.cnn.www
	if isIP(h) {
		chain = []string{h}
	} else {
		for i := 0; i <= len(h); i++ {
			if i == len(h) || h[i] == '.' {
				chain = append(chain, h[:i])
			}
		}
	}
	parent := s.Tree[""]
	parent.Rows += rows
	for i, k := range chain {
		n := s.Tree[k]
		if n == nil {
			n = &node{Key: k, Name: forward(k), IP: isIP(k)}
			s.Tree[k] = n
			parent.Children = append(parent.Children, k)
		}
		n.Rows += rows
		if i == len(chain)-1 {
			n.Host = true
		}
		parent = n
	}
}

// fetchChart counts the fetches of the table in fetchBuckets equal spans
// of time from the first to the last. It reads the fetch times twice (for the
// bounds, then the counts) rather than keep every time in memory.
func (ui *UI) fetchChart(ctx context.Context) ([]bucket, error) {
	var lo, hi time.Time
	err := ui.w.FetchTimes(ctx, nil, func(_ string, t time.Time) bool {
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
		return true
	})
	if err != nil || lo.IsZero() {
		return nil, err
	}
	out := buckets(lo, hi, fetchBuckets)
	width := out[0].End.Sub(out[0].Start)
	err = ui.w.FetchTimes(ctx, nil, func(_ string, t time.Time) bool {
		if !t.Before(lo) && t.Before(out[len(out)-1].End) {
			out[min(int(t.Sub(lo)/width), len(out)-1)].Count++
		}
		return true
	})
	return out, err
}

// buckets divides [lo, hi] into n equal spans (one when lo equals hi).
func buckets(lo, hi time.Time, n int) []bucket {
	width := hi.Sub(lo) / time.Duration(n)
	if width <= 0 {
		return []bucket{{Start: lo, End: hi.Add(time.Millisecond)}}
	}
	out := make([]bucket, n)
	for i := range out {
		out[i].Start = lo.Add(time.Duration(i) * width)
		out[i].End = out[i].Start.Add(width)
	}
	out[n-1].End = hi.Add(time.Millisecond)
	return out
}
