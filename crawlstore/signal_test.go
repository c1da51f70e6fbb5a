package crawlstore

import (
	"sync"
	"testing"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestQueueSignal(t *testing.T) {
	var q QueueSignal
	q.Fire() // nobody waits: nothing to close
	a, b := q.Wait(), q.Wait()
	if closed(a) || a != b {
		t.Fatalf("two waits before a fire: want one open channel")
	}
	q.Fire()
	if !closed(a) {
		t.Fatalf("fire did not close the waiters' channel")
	}
	c := q.Wait()
	if closed(c) {
		t.Fatalf("a wait after the fire got a closed channel: it would see the old fire")
	}
	q.Fire()
	q.Fire() // a second fire with nobody waiting must not close twice
	if !closed(c) {
		t.Fatalf("the second fire did not close the new channel")
	}
}

// TestQueueSignalWakesAll: one fire wakes every goroutine that waited
// before it.
func TestQueueSignalWakesAll(t *testing.T) {
	var q QueueSignal
	var ready, woke sync.WaitGroup
	for range 8 {
		ready.Add(1)
		woke.Add(1)
		go func() {
			defer woke.Done()
			ch := q.Wait()
			ready.Done()
			<-ch
		}()
	}
	ready.Wait()
	q.Fire()
	woke.Wait()
}
