package crawler

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// fakeFrontier is a store frontier for the scheduler alone: entries per
// host, in position order, and the positions each refill started from.
type fakeFrontier struct {
	mu    sync.Mutex
	hosts map[string][]crawlstore.Entry
	froms []string
}

func (f *fakeFrontier) add(host string, n, first int) []crawlstore.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hosts == nil {
		f.hosts = map[string][]crawlstore.Entry{}
	}
	var es []crawlstore.Entry
	for i := first; i < first+n; i++ {
		e := crawlstore.Entry{URL: fmt.Sprintf("http://%s/%d", host, i), Key: fmt.Sprintf("%s/%d", host, i), Frontier: fmt.Sprintf("%08d", i)}
		f.hosts[host] = append(f.hosts[host], e)
		es = append(es, e)
	}
	return es
}

// remove deletes an entry, as SavePage does with the page's entry.
func (f *fakeFrontier) remove(host string, e crawlstore.Entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	es := f.hosts[host]
	for i := range es {
		if es[i].Frontier == e.Frontier {
			f.hosts[host] = append(es[:i:i], es[i+1:]...)
			return
		}
	}
}

func (f *fakeFrontier) next(_ context.Context, host, from string, n int) (crawlstore.FrontierBatch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.froms = append(f.froms, from)
	b := crawlstore.FrontierBatch{Next: from}
	es := f.hosts[host]
	i := 0
	for i < len(es) && es[i].Frontier < from {
		i++
	}
	for ; i < len(es) && len(b.Entries) < n; i++ {
		b.Entries = append(b.Entries, es[i])
		b.Next = es[i].Frontier + "\x00"
	}
	b.More = i < len(es)
	return b, nil
}

// TestSchedulerReadsForward: a host's entries come from the store a window
// at a time, each read starting where the last ended, never from the start
// again.
func TestSchedulerReadsForward(t *testing.T) {
	var f fakeFrontier
	f.add("a.test", 70, 0)
	s := newScheduler(1, 0, 0)
	s.forRun(0, f.next)
	s.addHost("a.test", false)
	ctx := t.Context()
	for i := range 70 {
		e, host, ok := s.pop(ctx)
		if !ok || e.URL != fmt.Sprintf("http://a.test/%d", i) {
			t.Fatalf("pop %d = %v %s %v, want http://a.test/%d", i, e.URL, host, ok, i)
		}
		if s.inWindow > DefaultWindow {
			t.Fatalf("%d entries in memory, want at most a window of %d", s.inWindow, DefaultWindow)
		}
		s.done(host, e, true)
	}
	if _, _, ok := s.pop(ctx); ok {
		t.Error("pop after the last entry: ok, want the run over")
	}
	want := []string{"", fmt.Sprintf("%08d\x00", 31), fmt.Sprintf("%08d\x00", 63)}
	if fmt.Sprint(f.froms) != fmt.Sprint(want) {
		t.Errorf("refills started at %q, want %q", f.froms, want)
	}
}

// TestSchedulerLateEntry: an entry saved after later ones were read (two
// saves committing out of order) is read by the next refill, not lost;
// entries done meanwhile are gone from the store (SavePage deletes them),
// and those still held are not handed out twice.
func TestSchedulerLateEntry(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(1, 0, 0)
	s.forRun(0, f.next)
	// A full window of entries at positions 10.., then one at position 5
	// committed late (the store has it; the window has no room).
	for _, e := range f.add("a.test", DefaultWindow, 10) {
		s.enqueued("a.test", e)
	}
	late := f.add("a.test", 1, 5)[0]
	f.mu.Lock()
	es := f.hosts["a.test"]
	es = append([]crawlstore.Entry{es[len(es)-1]}, es[:len(es)-1]...) // keep position order
	f.hosts["a.test"] = es
	f.mu.Unlock()
	s.enqueued("a.test", late)
	got := map[string]bool{}
	for {
		e, host, ok := s.pop(t.Context())
		if !ok {
			break
		}
		if got[e.URL] {
			t.Errorf("%s handed out twice", e.URL)
		}
		got[e.URL] = true
		f.remove(host, e.Entry)
		s.done(host, e, true)
	}
	if !got[late.URL] || len(got) != DefaultWindow+1 {
		t.Errorf("handed out %d entries (late one: %v), want %d and the late one", len(got), got[late.URL], DefaultWindow+1)
	}
}

// TestSchedulerSoonestHostFirst: the host whose next request may start
// first is served first, whatever the order hosts were added in.
func TestSchedulerSoonestHostFirst(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(1, time.Hour, 0)
	s.forRun(0, f.next)
	now := time.Now()
	for i, ago := range []time.Duration{time.Minute, 3 * time.Hour, 2 * time.Hour} {
		host := fmt.Sprintf("h%d.test", i)
		s.host(host).last = now.Add(-ago)
		for _, e := range f.add(host, 1, 0) {
			s.enqueued(host, e)
		}
	}
	var order []string
	for range 2 {
		_, host, ok := s.pop(t.Context())
		if !ok {
			t.Fatal("pop: not ok")
		}
		s.host(host).last = time.Now() // its request starts
		order = append(order, host)
	}
	if fmt.Sprint(order) != "[h1.test h2.test]" {
		t.Errorf("pop order %v, want h1 (free 2h ago) then h2 (free 1h ago); h0 waits", order)
	}
	s.close()
}

// popped is what one worker of startPoppers took.
type popped struct {
	e    entry
	host string
}

// startPoppers starts n workers that each pop one entry from s and send it
// on the returned channel (a worker whose pop ends without one sends
// nothing); wait on the WaitGroup after closing s or handing out n entries.
func startPoppers(t *testing.T, s *scheduler, n int) (<-chan popped, *sync.WaitGroup) {
	got := make(chan popped, n)
	wg := new(sync.WaitGroup)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e, host, ok := s.pop(t.Context()); ok {
				got <- popped{e, host}
			}
		}()
	}
	return got, wg
}

// TestSchedulerWakesOne: an entry queued while many workers wait in pop
// wakes one of them, not all.
func TestSchedulerWakesOne(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(2, 0, 0)
	s.forRun(0, f.next)
	// One entry held keeps the run alive while the workers wait.
	for _, e := range f.add("a.test", 1, 0) {
		s.enqueued("a.test", e)
	}
	held, _, _ := s.pop(t.Context())
	const waiting = 8
	got, wg := startPoppers(t, s, waiting)
	for {
		s.mu.Lock()
		n := s.waiting()
		s.mu.Unlock()
		if n == waiting {
			break
		}
		runtime.Gosched()
	}
	for _, e := range f.add("b.test", 1, 0) {
		s.enqueued("b.test", e)
	}
	s.mu.Lock()
	left := s.waiting()
	s.mu.Unlock()
	if left != waiting-1 {
		t.Errorf("after one entry queued, %d of %d workers still wait; want %d (one woken)", left, waiting, waiting-1)
	}
	p := <-got
	s.done("b.test", p.e, true)
	s.done("a.test", held, true)
	wg.Wait()
}

// TestSchedulerDuplicateHeld: a URL queued twice (two pages saved at the
// same moment both found it new) is not handed to a second worker of its
// host while the first holds it: the later entry is skipped when read.
func TestSchedulerDuplicateHeld(t *testing.T) {
	var f fakeFrontier
	es := f.add("a.test", 4, 1) // positions 1..4
	f.mu.Lock()
	f.hosts["a.test"][2].URL, f.hosts["a.test"][2].Key = es[0].URL, es[0].Key // 3 queues 1's URL again
	f.mu.Unlock()
	s := newScheduler(2, 0, 0)
	s.window = 1 // the second entry of the URL comes in a later refill
	s.forRun(0, f.next)
	s.addHost("a.test", false)
	x, _, ok := s.pop(t.Context())
	y, _, ok2 := s.pop(t.Context())
	if !ok || !ok2 || x.URL != es[0].URL || y.URL != es[1].URL {
		t.Fatalf("first pops: %q (%v), %q (%v), want %q and %q", x.URL, ok, y.URL, ok2, es[0].URL, es[1].URL)
	}
	f.remove("a.test", y.Entry)
	s.done("a.test", y, true)
	z, _, ok := s.pop(t.Context())
	if !ok || z.URL != es[3].URL {
		t.Errorf("pop while %s is held = %q (frontier %s, %v), want %q: the URL would be fetched twice", x.URL, z.URL, z.Frontier, ok, es[3].URL)
	}
}

// Hosts whose work is over leave the scheduler once their politeness has
// nothing left to enforce: its memory follows the hosts being crawled,
// not every host met. A host with a Crawl-delay gets it back from the
// robots.txt cache when it is met again.
func TestIdleHostsLeaveTheScheduler(t *testing.T) {
	w := newVWeb(t)
	const n = 60
	body := ""
	for i := range n {
		host := fmt.Sprintf("h%d.example.com", i)
		w.site(host, "", map[string]string{"/": page("leaf")})
		body += fmt.Sprintf(`<a href="http://%s/">%d</a>`, host, i)
	}
	w.site("a.example.com", "", map[string]string{"/": page(body)})
	c, err := New(w.config(), crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Run(context.Background(), []string{"http://a.example.com/"})
	if err != nil || st.Fetched != n+1 {
		t.Fatalf("Run: %v, %d fetched, want %d", err, st.Fetched, n+1)
	}
	c.sched.mu.Lock()
	left := len(c.sched.hosts)
	c.sched.mu.Unlock()
	if left > n/4 {
		t.Errorf("%d of %d hosts still in the scheduler after the run, want at most %d", left, n+1, n/4)
	}
}

// A host pruned from the scheduler gets its Crawl-delay back from the
// robots.txt cache at its next page.
func TestPrunedHostKeepsItsCrawlDelay(t *testing.T) {
	w := newVWeb(t)
	w.site("a.example.com", "User-agent: *\nCrawl-delay: 1\n", map[string]string{"/": page(`<a href="/x">x</a>`), "/x": page("x")})
	c, err := New(w.config(), crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	u, _ := url.Parse("http://a.example.com/")
	if err := c.rob.allowed(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	c.sched.mu.Lock()
	delete(c.sched.hosts, "a.example.com") // as prune does
	c.sched.mu.Unlock()
	if err := c.rob.allowed(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	c.sched.mu.Lock()
	h := c.sched.hosts["a.example.com"]
	c.sched.mu.Unlock()
	if h == nil || h.crawl != time.Second {
		t.Errorf("host state after a pruned host's next robots check = %+v, want its Crawl-delay of 1s", h)
	}
}
