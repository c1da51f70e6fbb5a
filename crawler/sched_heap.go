package crawler

import "time"

// hostHeap orders hosts by the time their next request may start. Each
// entry carries that time, so that comparisons read the heap's array and
// not the hosts (with 100,000 hosts, a cache miss each).
type hostHeap []heapEntry

// heapEntry is a host in the ready heap and its key, readyAt(h) when it
// was last pushed or fixed.
type heapEntry struct {
	at time.Time
	h  *hostState
}

// NB: the heap operations are container/heap's, written for this type so
// that an entry is not boxed in an interface (an allocation) on every push.

func (q hostHeap) less(i, j int) bool { return q[i].at.Before(q[j].at) }

func (q hostHeap) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].h.idx, q[j].h.idx = i, j
}

func (q *hostHeap) push(e heapEntry) {
	e.h.idx = len(*q)
	*q = append(*q, e)
	q.up(len(*q) - 1)
}

func (q *hostHeap) remove(i int) {
	n := len(*q) - 1
	if n != i {
		q.swap(i, n)
		if !q.down(i, n) {
			q.up(i)
		}
	}
	(*q)[n].h.idx = -1
	(*q)[n] = heapEntry{}
	*q = (*q)[:n]
}

func (q hostHeap) fix(i int) {
	if !q.down(i, len(q)) {
		q.up(i)
	}
}

func (q hostHeap) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i, len(q))
	}
}

func (q hostHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !q.less(j, i) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q hostHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && q.less(j2, j1) {
			j = j2
		}
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}

// fix re-sorts h in the ready heap, if it is there, after a change of what
// its key is computed from. Callers hold s.mu.
func (s *scheduler) fix(h *hostState) {
	if h.idx >= 0 {
		s.ready[h.idx].at = readyAt(h)
		s.ready.fix(h.idx)
	}
}

// farFuture sorts after every time a host becomes ready.
var farFuture = time.Unix(1<<62, 0)

// readyAt is the heap key of h: when its next request may start, for an
// entry of its window whose origin is not paused (a refill when the window
// is empty). With a
// delay, while a request to h is in flight (a redirect hop of a worker
// holding another host's entry), that is not known before it ends: h sorts
// last. NB: it reads fields changed only under the scheduler's lock, and
// every change re-sorts h (fix).
func readyAt(h *hostState) time.Time {
	if h.inflight > 0 && h.delay() > 0 {
		return farFuture
	}
	next := h.last.Add(h.delay())
	if h.head == len(h.window) {
		return next // a refill, whose entries' origins are not known yet
	}
	// The soonest an entry of the window may start: its origin's pause.
	var paused [2]bool
	soonest := farFuture
	for _, e := range h.window[h.head:] {
		i := entryScheme(e.URL)
		if paused[i] {
			continue
		}
		paused[i] = true
		if p := h.orig[i].pause; p.Before(soonest) {
			soonest = p
		}
		if paused[1-i] {
			break
		}
	}
	return maxTime(next, soonest)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
