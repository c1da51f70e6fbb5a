package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// A page that links and redirects to a private address gets neither
// fetched: the dialer refuses the address after resolution, the origin is
// named once, and its pages are left queued, counted. For the test,
// 127.0.0.2 stands for the private network and 127.0.0.1 for the
// internet (both are loopback).
func TestPrivateAddressesRefused(t *testing.T) {
	clearProxyEnv(t)
	var inside atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("cannot listen on 127.0.0.2 (Linux routes all of 127.0.0.0/8 to loopback): %v", err)
	}
	private := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inside.Add(1)
		fmt.Fprint(w, "secret")
	}))
	private.Listener.Close()
	private.Listener = ln
	private.Start()
	defer private.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/r":
			http.Redirect(w, r, private.URL+"/metadata", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<a href="%[1]s/a">a</a> <a href="%[1]s/b">b</a> <a href="/r">r</a>`, private.URL)
		}
	}))
	defer public.Close()

	run := func(allow bool) (Stats, *logLines) {
		var logs logLines
		cfg := DefaultConfig()
		cfg.Delay, cfg.Timeout, cfg.Log = 0, 5*time.Second, logs.log
		cfg.AllowDomains = []string{"127.0.0.1", "127.0.0.2"}
		cfg.AllowPrivate = allow
		c, err := New(cfg, crawlertest.NewMemStore())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.retryBase = 10 * time.Millisecond
		c.tr.guard.private = func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") }
		st, err := c.Run(context.Background(), []string{public.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		return st, &logs
	}
	st, logs := run(false)
	if n := inside.Load(); n != 0 {
		t.Errorf("the private server got %d requests, want none", n)
	}
	origin := "http://" + strings.TrimPrefix(private.URL, "http://")
	if len(st.HeldBack) != 1 || st.HeldBack[0].Origin != origin || st.HeldBack[0].Reason != crawlstore.HoldPrivate || st.HeldBack[0].Entries != 2 {
		t.Errorf("HeldBack = %+v, want %s: 2 entries, private address", st.HeldBack, origin)
	}
	if st.Failures[FailPrivate] == 0 {
		t.Errorf("Failures = %v, want the refusals counted", st.Failures)
	}
	if got := logs.matching(origin); len(got) != 1 {
		t.Errorf("log lines naming %s: %q, want one", origin, got)
	}

	if st, _ := run(true); inside.Load() == 0 || len(st.HeldBack) != 0 {
		t.Errorf("with AllowPrivate: %d requests inside, HeldBack %+v; want the private pages fetched", inside.Load(), st.HeldBack)
	}
}

// A seed that names a private address may be crawled, and a resumed run
// (no seeds) may go on with it, since the store remembers it; another
// private address is still refused.
func TestPrivateSeedAllowedAcrossRuns(t *testing.T) {
	clearProxyEnv(t)
	var other atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("cannot listen on 127.0.0.2 (Linux routes all of 127.0.0.0/8 to loopback): %v", err)
	}
	elsewhere := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { other.Add(1) }))
	elsewhere.Listener.Close()
	elsewhere.Listener = ln
	elsewhere.Start()
	defer elsewhere.Close()
	seed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<a href="/next">next</a> <a href="%s/x">elsewhere</a>`, elsewhere.URL)
		default:
			fmt.Fprint(w, "end")
		}
	}))
	defer seed.Close()
	store := crawlertest.NewMemStore()
	run := func(seeds ...string) Stats {
		cfg := DefaultConfig()
		cfg.Delay, cfg.Timeout, cfg.Concurrency = 0, 5*time.Second, 1
		cfg.AllowDomains = []string{"127.0.0.1", "127.0.0.2"}
		c, err := New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.retryBase = 10 * time.Millisecond
		// 127.0.0.1 and 127.0.0.2 are both loopback: both private.
		st, err := c.RunLimited(context.Background(), seeds, 1)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := run(seed.URL + "/"); st.Fetched != 1 {
		t.Fatalf("first run fetched %d, want the seed (stats %+v)", st.Fetched, st)
	}
	st := run() // resume: no seeds
	if st.Fetched != 1 {
		t.Errorf("resumed run fetched %d, want /next of the private seed's address (stats %+v)", st.Fetched, st)
	}
	if n := other.Load(); n != 0 {
		t.Errorf("the other private address got %d requests, want none", n)
	}
}
