package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// endlessFrontier is a store frontier in which every host has entries
// without end, made up as they are read.
func endlessFrontier(_ context.Context, host, from string, n int) (crawlstore.FrontierBatch, error) {
	first, _ := strconv.Atoi(from)
	b := crawlstore.FrontierBatch{Entries: make([]crawlstore.Entry, n), More: true}
	for i := range n {
		pos := fmt.Sprintf("%010d", first+i)
		b.Entries[i] = crawlstore.Entry{URL: "http://" + host + "/" + pos, Key: host + "/" + pos, Frontier: pos}
	}
	b.Next = fmt.Sprintf("%010d", first+n)
	return b, nil
}

// BenchmarkSchedulerHosts measures one entry's way through the scheduler
// (pop and the refill of the host's window, the request's acquire and
// release, fetchOver, done) with 1,000 to
// 100,000 hosts and a delay of an hour, where the order in time matters:
// in each round every host is due once, at a time drawn at random, and
// each pop must hand out the host due first. ns/op should grow with the
// logarithm of the hosts, not with the hosts (a pop is O(log hosts)).
func BenchmarkSchedulerHosts(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			benchSchedulerHosts(b, n)
		})
	}
}

func benchSchedulerHosts(b *testing.B, n int) {
	b.ReportAllocs()
	var cpu time.Duration // process CPU time with the timer on: steadier than ns/op on a shared machine
	var c0 time.Duration
	stop := func() { b.StopTimer(); cpu += processCPU() - c0 }
	start := func() { c0 = processCPU(); b.StartTimer() }
	b.ResetTimer()
	c0 = processCPU()
	wrong := popInOrder(b, n, b.N, stop, start)
	stop()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if wrong > 0 {
		b.Errorf("%d of %d pops handed out a host other than the one due first", wrong, b.N)
	}
}

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// popInOrder takes pops entries through a scheduler of n hosts with a
// delay of an hour, in rounds: in each, every host is due once, at a time
// drawn at random, one microsecond apart. It returns how many pops handed
// out a host other than the one due first. stop and start bracket the
// setup of each round (a benchmark's timer).
func popInOrder(tb testing.TB, n, pops int, stop, start func()) (wrong int) {
	const delay = time.Hour
	// NB: a pop that waits for a host not yet due would wait an hour.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := newScheduler(1, delay, 0)
	// NB: one entry per refill, so that every pop reads the frontier
	// whatever the number of hosts (with a window of 32, 1,000 hosts would
	// read once in 32 pops and 100,000 hosts, each popped a few times,
	// nearly every time).
	s.window = 1
	s.forRun(0, endlessFrontier)
	defer s.close()
	hosts := make([]*hostState, n)
	for i := range hosts {
		name := fmt.Sprintf("h%06d.test", i)
		s.addHost(name, false)
		hosts[i] = s.host(name)
	}
	order := make([]*hostState, n) // the hosts in the order they are due in a round
	for done := 0; done < pops; {
		stop()
		base := time.Now().Add(-delay - time.Duration(n+1)*time.Microsecond)
		for rank, i := range rand.Perm(n) {
			hosts[i].last = base.Add(time.Duration(rank) * time.Microsecond)
			order[rank] = hosts[i]
		}
		s.mu.Lock()
		for i := range s.ready {
			s.ready[i].at = readyAt(s.ready[i].h)
		}
		s.ready.init()
		s.mu.Unlock()
		start()
		for rank := 0; rank < n && done < pops; rank++ {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			e, host, ok := s.pop(pctx)
			cancel()
			if !ok {
				tb.Fatalf("pop %d waited although %d hosts were due", done, n-rank)
			}
			if host != order[rank].name {
				wrong++
			}
			release, err := s.acquire(ctx, nil, "http", host)
			if err != nil {
				tb.Fatal(err)
			}
			release()
			s.fetchOver(host, e)
			s.done(host, e, true)
			done++
		}
	}
	return wrong
}

// TestSchedulerHostsOrder is the CI size of BenchmarkSchedulerHosts: with
// 2,000 hosts due at random times, two rounds of pops take them in the
// order they are due.
func TestSchedulerHostsOrder(t *testing.T) {
	const n = 2_000
	if wrong := popInOrder(t, n, 2*n, func() {}, func() {}); wrong > 0 {
		t.Errorf("%d of %d pops handed out a host other than the one due first", wrong, 2*n)
	}
}
