package crawlrun

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestRunRefusesConfig: a configuration the crawler refuses is a
// *SetupError, and nothing runs.
func TestRunRefusesConfig(t *testing.T) {
	ctx := context.Background()
	w, err := stores.Open(ctx, t.TempDir(), stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg := crawler.DefaultConfig()
	cfg.Depth = -1
	ran := false
	_, err = Run(ctx, w, []string{"http://www.cnn.com/"}, cfg, func(*crawler.Crawler) { ran = true })
	var se *SetupError
	if !errors.As(err, &se) || !errors.Is(err, crawler.ErrConfig) || ran {
		t.Fatalf("Run with depth -1 = %v (started %v), want a *SetupError wrapping crawler.ErrConfig, not started", err, ran)
	}
}

// TestLogTo: lines written at once from many goroutines come out whole,
// each after the prefix.
func TestLogTo(t *testing.T) {
	var b strings.Builder
	log := LogTo(&b, "crawl: pass 1/3: ")
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { log("fetched http://www.cnn.com/") })
	}
	wg.Wait()
	want := strings.Repeat("crawl: pass 1/3: fetched http://www.cnn.com/\n", 64)
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
