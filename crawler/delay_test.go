package crawler

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
)

// TestDelayCountsFromResponseEnd: with a delay, a host's next request
// starts no sooner than the delay after the previous one's response was
// read, however long that response took, and never while it is in flight,
// whatever PerHost says. Counting from the previous request's start would
// let the second request go while the slow first one is still answered.
func TestDelayCountsFromResponseEnd(t *testing.T) {
	const delay, slow = 60 * time.Millisecond, 150 * time.Millisecond
	s := newScheduler(2, delay, 0)
	ctx := t.Context()
	release, err := s.acquire(ctx, nil, "http", "a.test")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan time.Time, 1)
	go func() {
		rel, err := s.acquire(ctx, nil, "http", "a.test")
		if err != nil {
			t.Error(err)
			close(started)
			return
		}
		started <- time.Now()
		rel()
	}()
	time.Sleep(slow) // NB: the first response takes this long, not a synchronisation
	release()
	ended := time.Now()
	at, ok := <-started
	if !ok {
		return
	}
	if gap := at.Sub(ended); gap < delay {
		t.Errorf("second request started %v after the first one's response ended, want at least the delay %v", gap, delay)
	}
}

// TestNoDelayPerHost: without a delay, PerHost requests to one host may be
// in flight at once.
func TestNoDelayPerHost(t *testing.T) {
	s := newScheduler(2, 0, 0)
	ctx := t.Context()
	r1, err := s.acquire(ctx, nil, "http", "a.test")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.acquire(ctx, nil, "http", "a.test")
	if err != nil {
		t.Fatal(err)
	}
	if n := s.host("a.test").inflight; n != 2 {
		t.Errorf("%d requests in flight, want 2", n)
	}
	r1()
	r2()
}

// TestDelayOneEntryAtATime: a host with a delay gives out one entry at a
// time: a second worker would only wait for the first one's response.
func TestDelayOneEntryAtATime(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(4, time.Hour, 0)
	s.forRun(0, f.next)
	for _, e := range f.add("a.test", 3, 0) {
		s.enqueued("a.test", e)
	}
	for _, e := range f.add("b.test", 1, 0) {
		s.enqueued("b.test", e)
	}
	got := map[string]int{}
	for range 2 {
		_, host, ok := s.pop(t.Context())
		if !ok {
			t.Fatal("pop: not ok")
		}
		got[host]++
	}
	if got["a.test"] != 1 || got["b.test"] != 1 {
		t.Errorf("two pops gave %v, want one entry of each host", got)
	}
	s.close()
}

// TestSchedulerOneTimekeeper: of the workers waiting in pop for a host
// that becomes ready later, one sleeps with a timer and the others wait to
// be woken, so the host coming due wakes one worker, not all of them; the
// entries of hosts coming due one after the other are all handed out.
func TestSchedulerOneTimekeeper(t *testing.T) {
	var f fakeFrontier
	const delay = 40 * time.Millisecond
	s := newScheduler(1, delay, 0)
	s.forRun(0, f.next)
	// One entry held keeps the run alive while the workers wait.
	for _, e := range f.add("held.test", 1, 0) {
		s.enqueued("held.test", e)
	}
	held, _, _ := s.pop(t.Context())
	const workers, hosts = 8, 3
	for i := range hosts {
		host := fmt.Sprintf("h%d.test", i)
		s.host(host).last = time.Now().Add(time.Duration(i) * delay / 2) // due one after the other
		for _, e := range f.add(host, 1, 0) {
			s.enqueued(host, e)
		}
	}
	got, wg := startPoppers(t, s, workers)
	for {
		s.mu.Lock()
		n, keeper, untimed := s.waiting(), s.keeper != nil, len(s.waiters)
		s.mu.Unlock()
		if n == workers {
			if !keeper || untimed != workers-1 {
				t.Errorf("%d workers wait: timekeeper %v, %d without a timer; want one timekeeper and %d without", n, keeper, untimed, workers-1)
			}
			break
		}
		if len(got) > 0 {
			t.Fatalf("an entry was handed out before its host was due")
		}
		runtime.Gosched()
	}
	for range hosts {
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("a host that came due was not handed to a waiting worker")
		}
	}
	s.done("held.test", held, true)
	s.close()
	wg.Wait()
	// Each host coming due wakes the timekeeper, which wakes another to
	// keep time; closing wakes the rest. All waking at each due time
	// would be about workers per host.
	if s.woken > 2*hosts+workers {
		t.Errorf("workers woke %d times for %d hosts coming due, want at most %d", s.woken, hosts, 2*hosts+workers)
	}
}

// TestUsageAccounting: the scheduler counts the worker-time spent idle,
// and the part of it during which a host was due for the idle worker: the
// integral of min(idle workers, hosts due).
func TestUsageAccounting(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(1, time.Second, 0)
	s.forRun(0, f.next)
	t0 := time.Now()
	ms := time.Millisecond
	// Due at t0+10ms, t0+200ms, t0+250ms, and long after.
	for i, due := range []time.Duration{10 * ms, 200 * ms, 250 * ms, time.Hour} {
		host := fmt.Sprintf("h%d.test", i)
		s.host(host).last = t0.Add(due - time.Second)
		for _, e := range f.add(host, 1, 0) {
			s.enqueued(host, e)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cases := []struct {
		name     string
		idle     int
		from, to time.Duration
		want     usage // added
	}{
		{"no worker idle", 0, 0, 100 * ms, usage{}},
		{"one idle, one host due", 1, 0, 100 * ms, usage{idle: 100 * ms, lost: 90 * ms}},
		{"two idle, hosts coming due", 2, 0, 300 * ms, usage{idle: 600 * ms, lost: 290*ms + 100*ms}},
		{"two idle, three due", 2, 260 * ms, 300 * ms, usage{idle: 80 * ms, lost: 80 * ms}},
		{"five idle, three due", 5, 260 * ms, 300 * ms, usage{idle: 200 * ms, lost: 120 * ms}},
	}
	for _, tc := range cases {
		s.use, s.acctAt, s.idle = usage{}, t0.Add(tc.from), tc.idle
		s.account(t0.Add(tc.to))
		if s.use != tc.want {
			t.Errorf("%s: usage = %+v, want %+v", tc.name, s.use, tc.want)
		}
	}
	s.idle = 0
}

// TestRobotsTurnFreesTheWorker: the robots.txt fetched before a host's
// first page takes the host's turn; the worker then fetches another host
// rather than wait for the page's turn.
func TestRobotsTurnFreesTheWorker(t *testing.T) {
	w := newVWeb(t)
	for _, h := range []string{"a.test", "b.test"} {
		w.site(h, "User-agent: *\nDisallow:\n", map[string]string{"/": page("x")})
	}
	cfg := w.config()
	cfg.Delay = 200 * time.Millisecond
	cfg.Concurrency = 1
	cfg.AllowDomains = []string{"a.test", "b.test"}
	st := crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/", "http://b.test/")
	if st.Fetched != 2 {
		t.Fatalf("fetched %d pages, want 2", st.Fetched)
	}
	w.mu.Lock()
	var order []string
	for _, h := range w.hits {
		order = append(order, h.Host+h.Path)
	}
	w.mu.Unlock()
	if len(order) != 4 || order[1] == order[0][:len("a.test")]+"/" {
		t.Errorf("requests in order %q: want the other host's robots.txt second, not the page waiting for its turn", order)
	}
	for _, h := range []string{"a.test", "b.test"} {
		checkGaps(t, w, h, cfg.Delay)
	}
}

// TestBusyWorkers: a crawl with a delay reports how long workers idled,
// and how much of it with a host due for them (part of it). NB: how small that
// part is depends on how fast a woken goroutine runs, which a loaded
// machine under -race does not promise; BenchmarkManyHostsDelay
// (cmd/crawl) reports the share, and TestRobotsTurnFreesTheWorker and
// TestSchedulerOneTimekeeper test what keeps it small.
func TestBusyWorkers(t *testing.T) {
	w := newVWeb(t)
	var seeds, domains []string
	const hosts, pages = 12, 4
	for i := range hosts {
		h := fmt.Sprintf("h%d.test", i)
		site := map[string]string{"/": page(`<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>`)}
		for j := 1; j < pages; j++ {
			site[fmt.Sprintf("/%d", j)] = page("leaf")
		}
		w.site(h, "User-agent: *\nDisallow:\n", site)
		seeds = append(seeds, "http://"+h+"/")
		domains = append(domains, h)
	}
	cfg := w.config()
	cfg.Delay = 50 * time.Millisecond
	cfg.Concurrency = 4
	cfg.AllowDomains = domains
	st := crawl(t, cfg, crawlertest.NewMemStore(), seeds...)
	if st.Fetched != hosts*pages {
		t.Fatalf("fetched %d, want %d", st.Fetched, hosts*pages)
	}
	t.Logf("workers idle %v, of which with a host due %v", st.Idle, st.IdleReady)
	if st.Idle <= 0 || st.IdleReady < 0 || st.IdleReady > st.Idle {
		t.Errorf("workers idle %v, of which with a host due %v; want a part of a positive time", st.Idle, st.IdleReady)
	}
}

// TestDelayTurnNotHeldByStore: with a delay, a host's next entry is handed
// out once the delay after its last response has passed, while the worker
// of the previous one is still storing it: storing is not asking the host.
func TestDelayTurnNotHeldByStore(t *testing.T) {
	var f fakeFrontier
	s := newScheduler(1, 30*time.Millisecond, 0)
	s.forRun(0, f.next)
	for _, e := range f.add("a.test", 2, 0) {
		s.enqueued("a.test", e)
	}
	first, _, _ := s.pop(t.Context())
	release, err := s.acquire(t.Context(), nil, "http", "a.test")
	if err != nil {
		t.Fatal(err)
	}
	release()
	s.fetchOver("a.test", first)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	second, _, ok := s.pop(ctx)
	if !ok {
		t.Fatal("the host's next entry was not handed out while the first one was being stored")
	}
	s.done("a.test", first, true)
	s.done("a.test", second, true)
}
