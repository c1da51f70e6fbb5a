package crawlertest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/webtable/webtable/crawlstore"
)

// The cases of StoreContract about the frontier: Enqueue, Hosts, Next,
// the Requeue of failed fetches and HostPages.

func testEnqueue(t *testing.T, s crawlstore.Store) {
	got := enqueue(t, s,
		crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 0},
		crawlstore.Entry{URL: "http://cnnsi.com/", Depth: 1},
		crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 2},
	)
	want := []crawlstore.State{crawlstore.StateNone, crawlstore.StateNone, crawlstore.StateQueued}
	if !slices.Equal(got, want) {
		t.Errorf("first Enqueue states = %v, want %v", got, want)
	}
	got = enqueue(t, s, crawlstore.Entry{URL: "http://cnnsi.com/", Depth: 3}, crawlstore.Entry{URL: "http://my.look.ca/", Depth: 1})
	want = []crawlstore.State{crawlstore.StateQueued, crawlstore.StateNone}
	if !slices.Equal(got, want) {
		t.Errorf("second Enqueue states = %v, want %v", got, want)
	}
}

func testQueued(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 0}, crawlstore.Entry{URL: "http://www.cnn.com/a.html", Depth: 2})
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/a.html", Depth: 1}) // known: depth unchanged
	got := queued(t, s)
	want := map[string]int{"http://www.cnn.com/": 0, "http://www.cnn.com/a.html": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Queued = %v, want %v", got, want)
	}
}

func testQueuedStop(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://a.example/"}, crawlstore.Entry{URL: "http://b.example/"}, crawlstore.Entry{URL: "http://c.example/"})
	n := 0
	if err := s.Hosts(ctx, 0, 1, func(string) bool { n++; return false }); err != nil {
		t.Fatalf("Hosts: %v", err)
	}
	if n != 1 {
		t.Errorf("Hosts called fn %d times after it returned false, want 1", n)
	}
}

// testHostsByShard: each host is listed for the shard ShardOf names, and
// only for it.
func testHostsByShard(t *testing.T, s crawlstore.Store) {
	var es []crawlstore.Entry
	for i := range 20 {
		es = append(es, crawlstore.Entry{URL: fmt.Sprintf("http://h%02d.example/", i)})
	}
	enqueue(t, s, es...)
	const shards = 3
	total := 0
	for shard := range shards {
		err := s.Hosts(ctx, shard, shards, func(h string) bool {
			total++
			if got := crawlstore.ShardOf(h, shards); got != shard {
				t.Errorf("Hosts(shard %d of %d) listed %s, of shard %d", shard, shards, h, got)
			}
			return true
		})
		if err != nil {
			t.Fatalf("Hosts: %v", err)
		}
	}
	if total != len(es) {
		t.Errorf("the shards listed %d hosts in all, want %d", total, len(es))
	}
}

// testNextInOrder: a host's entries come back in order of discovery, and
// the entry of a page saved with its position is gone.
func testNextInOrder(t *testing.T, s crawlstore.Store) {
	es := []crawlstore.Entry{{URL: "http://a.example/3"}, {URL: "http://a.example/1"}, {URL: "http://a.example/2"}}
	enqueue(t, s, es...)
	b, err := s.Next(ctx, "a.example", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range b.Entries {
		got = append(got, e.URL)
	}
	if want := []string{"http://a.example/3", "http://a.example/1", "http://a.example/2"}; !slices.Equal(got, want) || b.More {
		t.Fatalf("Next = %v (more %v), want %v in order of discovery, no more", got, b.More, want)
	}
	p := html(b.Entries[0].URL, at(1), "x")
	p.Frontier = b.Entries[0].Frontier
	save(t, s, p)
	if q := queued(t, s); len(q) != 2 || q["http://a.example/3"] != 0 && len(q) != 2 {
		t.Errorf("frontier after saving /3 = %v, want /1 and /2", q)
	}
	if _, ok := queued(t, s)["http://a.example/3"]; ok {
		t.Error("the saved page's entry is still in the frontier")
	}
}

// testRequeue: a failed URL is queued again when met by a later run, once.
func testRequeue(t *testing.T, s crawlstore.Store) {
	p := &crawlstore.Page{URL: "http://a.example/x", FinalURL: "http://a.example/x", Time: at(1), Status: 500, Err: "500", ErrKind: crawlstore.KindHTTP}
	save(t, s, p)
	rq := crawlstore.Requeue{Failed: true, Before: at(1)}
	es := []crawlstore.Entry{{URL: p.URL, Depth: 1}}
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateFailed || es[0].Frontier != "" {
		t.Errorf("Enqueue in the run of the failure = %v, frontier %q; want failed, not queued", st, es[0].Frontier)
	}
	rq.Before = at(2)
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateFailed || es[0].Frontier == "" {
		t.Errorf("Enqueue in a later run = %v, frontier %q; want failed, queued again", st, es[0].Frontier)
	}
	es = []crawlstore.Entry{{URL: p.URL, Depth: 1}}
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateQueued || es[0].Frontier != "" {
		t.Errorf("Enqueue once more = %v, frontier %q; want queued, no second entry", st, es[0].Frontier)
	}
	if q := queued(t, s); len(q) != 1 {
		t.Errorf("frontier = %v, want the failed URL once", q)
	}
}

// testHostPages: each page marked done counts once for its host, however
// often it was fetched; failures and other hosts do not count; the count
// stops at the limit.
func testHostPages(t *testing.T, s crawlstore.Store) {
	for i := range 3 {
		save(t, s, html(fmt.Sprintf("http://a.example/%d", i), at(1), "x"))
	}
	save(t, s, html("http://a.example/0", at(2), "y"))
	save(t, s, html("http://b.example/0", at(1), "x"))
	save(t, s, &crawlstore.Page{URL: "http://a.example/bad", FinalURL: "http://a.example/bad", Time: at(1), Status: 500, Err: "500", ErrKind: crawlstore.KindHTTP})
	for _, tc := range []struct {
		host        string
		limit, want int
	}{{"a.example", 10, 3}, {"a.example", 2, 2}, {"b.example", 10, 1}, {"c.example", 10, 0}} {
		n, err := s.HostPages(ctx, tc.host, tc.limit)
		if err != nil || n != tc.want {
			t.Errorf("HostPages(%s, %d) = %d, %v; want %d", tc.host, tc.limit, n, err, tc.want)
		}
	}
}
