package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// shardLine is one shard of query stats --json, as the test reads it.
type shardLine struct {
	Shard, Shards  int
	State          string
	Stale          bool
	Fetched, Beats int64
}

// TestContinuousShardHeartbeats runs two shards of a continuous crawl as
// real processes and reads their records with the real query binary:
// both show as running with the pages they fetched, their heartbeats go
// on while they wait for the next page due (an hour away), a shard
// stopped with Ctrl-C says stopped, and one killed with SIGKILL shows as
// stale once its --shard-timeout has passed.
func TestContinuousShardHeartbeats(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	crawlBin, queryBin := buildCrawl(t, ""), buildQuery(t, "")
	const hosts, pages, timeout = 6, 2, 2 * time.Second
	web := newManyHostWeb(t, hosts, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const db = "bigtable://p/i/t"
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*lockedBuffer, 2)
	for i := range cmds {
		outs[i] = &lockedBuffer{}
		cmds[i] = exec.CommandContext(ctx, crawlBin, shardArgs(web, db, i, 2, "--continuous", "--min-interval", "1h", "--shard-timeout", timeout.String())...)
		cmds[i].Stderr = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	lastErr := ""
	stats := func() []shardLine {
		t.Helper()
		var stderr bytes.Buffer
		q := exec.CommandContext(ctx, queryBin, "--db", db, "stats", "--json")
		q.Stderr = &stderr
		out, err := q.Output()
		if err != nil {
			// NB: before the first shard creates the table, query finds none.
			lastErr = fmt.Sprintf("query stats --json: %v\n%s%s", err, out, stderr.String())
			return nil
		}
		var s struct{ Shards []shardLine }
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("query stats --json: %v\n%s", err, out)
		}
		return s.Shards
	}
	// NB: each look is a run of query; the loop ends when the condition
	// holds, or fails at the context's deadline.
	waitFor := func(what string, cond func([]shardLine) bool) []shardLine {
		t.Helper()
		for {
			s := stats()
			if cond(s) {
				return s
			}
			if ctx.Err() != nil {
				t.Fatalf("never saw %s; last records %+v (%s)\nshard 0:\n%s\nshard 1:\n%s", what, s, lastErr, outs[0], outs[1])
			}
		}
	}
	both := func(cond func(shardLine) bool) func([]shardLine) bool {
		return func(s []shardLine) bool {
			return len(s) == 2 && cond(s[0]) && cond(s[1])
		}
	}
	all := hosts * pages
	s := waitFor("both shards running with every page fetched", both(func(l shardLine) bool {
		return l.Shards == 2 && l.State == "running" && !l.Stale && l.Fetched > 0
	}))
	waitFor("every page fetched and counted", func(s []shardLine) bool {
		return len(s) == 2 && s[0].Fetched+s[1].Fetched == int64(all) && fetchesOf(web) == all
	})
	// Every page is fetched and due in an hour: the shards wait, and beat.
	beats := []int64{s[0].Beats, s[1].Beats}
	s = waitFor("heartbeats while the shards wait for the next page due", both(func(l shardLine) bool {
		return l.Beats >= beats[l.Shard]+3 && l.State == "running"
	}))
	if got := fetchesOf(web); got != all {
		t.Errorf("%d fetches while the shards waited for pages due in an hour, want the %d of the first visit", got, all)
	}

	// Shard 0 is stopped (Ctrl-C); shard 1 is killed.
	if err := cmds[0].Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmds[0].Wait(); err == nil || cmds[0].ProcessState.ExitCode() != exitInterrupted {
		t.Errorf("shard 0 after Ctrl-C: %v, want exit status %d\n%s", err, exitInterrupted, outs[0])
	}
	killed := time.Now()
	_ = cmds[1].Process.Signal(syscall.SIGKILL)
	_ = cmds[1].Wait()
	s = waitFor("shard 1 stale after its kill", func(s []shardLine) bool { return len(s) == 2 && s[1].Stale })
	// NB: stale counts from its last heartbeat, up to a poll (100 ms
	// with --shard-timeout 2s) before the kill.
	if d := time.Since(killed); d < timeout-100*time.Millisecond {
		t.Errorf("shard 1 stale %v after its kill, before its --shard-timeout %v less a poll", d, timeout)
	}
	if s[0].State != "stopped" || s[0].Stale {
		t.Errorf("shard 0 after Ctrl-C: %+v, want stopped and not stale", s[0])
	}
	if s[1].State != "running" {
		t.Errorf("shard 1 after SIGKILL: %+v, want still saying running (it could not say otherwise)", s[1])
	}
	for i := range 2 {
		if want := int64(fetchesByShard(web, i)); s[i].Fetched != want {
			t.Errorf("shard %d's record counts %d pages fetched, the web saw %d", i, s[i].Fetched, want)
		}
	}
	text, err := exec.CommandContext(ctx, queryBin, "--db", db, "stats").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shard      0/2 stopped: fetched", "shard      1/2 STALE (says running"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("query stats does not say %q:\n%s", want, text)
		}
	}
}

// fetchesByShard counts the page fetches web answered for shard i
// (User-Agent shard-i).
func fetchesByShard(web *manyHostWeb, i int) int {
	web.mu.Lock()
	defer web.mu.Unlock()
	n := 0
	for _, uas := range web.fetches {
		for _, ua := range uas {
			if ua == fmt.Sprintf("shard-%d", i) {
				n++
			}
		}
	}
	return n
}

// lockedBuffer is a bytes.Buffer that a process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
