package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryAfterAcrossRuns: a server that asks for an hour's pause has its
// pages left queued and listed, with when they may be tried again; query
// stats --by-origin says the same; and the next run, a new process, sends
// it nothing before then and lists them again.
func TestRetryAfterAcrossRuns(t *testing.T) {
	var busyHits atomic.Int64
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		busyHits.Add(1)
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "come back in an hour", http.StatusTooManyRequests)
	}))
	defer busy.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<a href="%[1]s/1">1</a> <a href="%[1]s/2">2</a> <a href="%[1]s/3">3</a>`, busy.URL)
	}))
	defer home.Close()
	tmp := t.TempDir()
	bin, queryBin := buildCrawl(t, tmp), buildQuery(t, tmp)
	db := filepath.Join(tmp, "db")
	crawl := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--db", db, "--delay", "0", "--concurrency", "1", "--allow-private"}, args...)...)
		cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("crawl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	origin := busy.URL // http://127.0.0.1:PORT
	out := crawl(home.URL + "/")
	if got := heldBackOf(out); got[origin] != 2 || len(got) != 1 {
		t.Errorf("left queued = %v, want %s: 2 (its first page failed with the 429)\n%s", got, origin, out)
	}
	if !strings.Contains(out, "server asked to wait") || !strings.Contains(out, "tried again after") {
		t.Errorf("the list does not say why and until when:\n%s", out)
	}
	if n := busyHits.Load(); n != 1 {
		t.Errorf("the busy server got %d page requests, want 1", n)
	}

	q, err := exec.Command(queryBin, "--db", db, "stats", "--by-origin", "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("query stats --by-origin: %v\n%s", err, q)
	}
	var st struct {
		HeldBack int64 `json:"held_back"`
		Origins  []struct {
			Origin, Reason, Until string
			Queued                int64
		} `json:"origins"`
	}
	if err := json.Unmarshal(q, &st); err != nil {
		t.Fatalf("query stats --json printed %q: %v", q, err)
	}
	if st.HeldBack != 2 || len(st.Origins) != 1 || st.Origins[0].Origin != origin || st.Origins[0].Queued != 2 ||
		st.Origins[0].Reason != "server asked to wait" || st.Origins[0].Until == "" {
		t.Errorf("query stats --by-origin --json = %s, want %s: 2 queued, server asked to wait, until a time", q, origin)
	}
	until, err := time.Parse(time.RFC3339Nano, st.Origins[0].Until)
	if err != nil || time.Until(until) < 59*time.Minute {
		t.Errorf("until %q (%v), want about an hour from now", st.Origins[0].Until, err)
	}
	human, err := exec.Command(queryBin, "--db", db, "stats", "--by-origin").CombinedOutput()
	if err != nil || !strings.Contains(string(human), origin) || !strings.Contains(string(human), "held back") {
		t.Errorf("query stats --by-origin: %v\n%s", err, human)
	}

	out = crawl() // resume, a new process
	if n := busyHits.Load(); n != 1 {
		t.Errorf("the busy server got %d page requests after the next run, want still 1: its Retry-After holds", n)
	}
	if got := heldBackOf(out); got[origin] != 2 {
		t.Errorf("the next run's list = %v, want %s: 2\n%s", got, origin, out)
	}
}
