package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/search"
	"github.com/webtable/webtable/webtable"
)

// TestFollow runs index --follow over a store a crawl serves, stores
// pages through that server one after another, and polls the search index
// until each is found: within 10 s of being stored.
func TestFollow(t *testing.T) {
	dir := makeStore(t, testPages(10))
	ctx := context.Background()
	served, err := stores.OpenServed(ctx, dir, webtable.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	cmd := exec.Command(binary(t), "--db", dir, "--follow", "--follow-every", "100ms", "text", "search")
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("index --follow said:\n%s", out.String())
		}
	}()
	for i := range 3 {
		word := fmt.Sprintf("zebrafish%c", 'a'+i)
		jobstest.Store(t, served.WebTable, []jobstest.Page{{
			URL:  fmt.Sprintf("http://fresh.example.com/%d.html", i),
			HTML: fmt.Sprintf("<title>Fresh %d</title><p>A %s swims.</p>", i, word),
			Time: time.Now(),
		}})
		stored := time.Now()
		deadline := stored.Add(10 * time.Second)
		for !found(t, served.WebTable, filepath.Join(dir, search.DirName), word) {
			if time.Now().After(deadline) {
				t.Fatalf("page %d (%s) was not searchable 10 s after it was stored", i, word)
			}
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
			}
		}
		t.Logf("page %d searchable %v after it was stored", i, time.Since(stored).Round(time.Millisecond))
	}
}

// found reports whether a search for word has a hit; an index not there
// yet, or held by the writer, is not found yet.
func found(t *testing.T, w *webtable.WebTable, dir, word string) bool {
	t.Helper()
	r, err := search.OpenReader(dir)
	if err != nil {
		return false
	}
	defer r.Close()
	res, err := r.Search(context.Background(), w, search.Request{Query: word})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Hits) == 1
}

// lockedBuffer is a buffer a process's output can be copied into while a
// test reads it.
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
