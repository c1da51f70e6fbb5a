package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/webtable"
)

// faultyStore is the embedded store with faults a test switches on: Close
// fails after closing, and writes hang until their context ends.
type faultyStore struct {
	*bigtable.DB
	failClose bool
	hang      <-chan struct{} // once closed, writes hang
}

func (s *faultyStore) Close() error {
	if err := s.DB.Close(); err != nil || !s.failClose {
		return err
	}
	return errors.New("injected fault: the final flush failed")
}

type faultyTable struct {
	*bigtable.Table
	hang <-chan struct{}
}

func (t faultyTable) wait(ctx context.Context) error {
	if t.hang == nil {
		return nil
	}
	select {
	case <-t.hang:
		<-ctx.Done()
		return ctx.Err()
	default:
		return nil
	}
}

func (t faultyTable) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	if err := t.wait(ctx); err != nil {
		return err
	}
	return t.Table.Apply(ctx, row, m, opts...)
}

func (t faultyTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	return t.Table.ApplyBulk(ctx, rows, muts)
}

// faultyOpener opens the store at its --db as faultyStore does.
func faultyOpener(failClose bool, hang <-chan struct{}) func(context.Context, string, webtable.Options) (*webtable.WebTable, error) {
	return func(ctx context.Context, dir string, opts webtable.Options) (*webtable.WebTable, error) {
		db, err := bigtable.Open(dir)
		if err != nil {
			return nil, err
		}
		s := &faultyStore{DB: db, failClose: failClose, hang: hang}
		return webtable.New(ctx, s, faultyTable{db.Open(webtable.TableName), hang}, true, opts)
	}
}

// runCrawlWith runs the program in-process with d, failing the test if it
// has not returned within a minute (a hang is the fault some tests look for).
func runCrawlWith(t *testing.T, ctx context.Context, d deps, args ...string) (code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	exited := make(chan int, 1)
	go func() { exited <- runWith(ctx, args, &out, &errb, d) }()
	select {
	case code = <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("crawl %v did not return within a minute", args)
	}
	return code, errb.String()
}

// TestFailedCloseExits1: when closing the store fails (its final flush),
// the crawl exits 1 and says so, also after Ctrl-C, whose 130 would tell
// the user that all in flight was stored.
func TestFailedCloseExits1(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	for _, interrupt := range []bool{false, true} {
		t.Run(map[bool]string{false: "finished", true: "interrupted"}[interrupt], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			srv := site(t, 20, 2, func(n int64) {
				if interrupt && n == 5 {
					once.Do(cancel)
				}
			})
			dir := filepath.Join(t.TempDir(), "db")
			d := deps{open: faultyOpener(true, nil), storeGrace: storeGrace}
			code, stderr := runCrawlWith(t, ctx, d, "--db", dir, "--delay", "0", "--depth", "50", srv.URL+"/p/0")
			if code != exitStoreFailed {
				t.Errorf("exit %d, want %d\n%s", code, exitStoreFailed, stderr)
			}
			if !strings.Contains(stderr, "closing the store "+dir+" failed") || !strings.Contains(stderr, "injected fault") {
				t.Errorf("stderr does not say that closing the store failed, and why:\n%s", stderr)
			}
		})
	}
}

// TestStoreCallsCutOffAfterInterrupt: once the crawl is interrupted, a
// store call that hangs is ended after the grace period, and the crawl
// exits 1 saying the store did not answer.
func TestStoreCallsCutOffAfterInterrupt(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hang := make(chan struct{})
	var once sync.Once
	srv := site(t, 20, 2, func(n int64) {
		if n == 5 {
			once.Do(func() { close(hang); cancel() })
		}
	})
	dir := filepath.Join(t.TempDir(), "db")
	d := deps{open: faultyOpener(false, hang), storeGrace: 100 * time.Millisecond}
	code, stderr := runCrawlWith(t, ctx, d, "--db", dir, "--delay", "0", "--depth", "50", srv.URL+"/p/0")
	if code != exitStoreFailed {
		t.Errorf("exit %d, want %d\n%s", code, exitStoreFailed, stderr)
	}
	if !strings.Contains(stderr, "the store did not answer within 100ms of the interrupt") {
		t.Errorf("stderr does not say the store was cut off:\n%s", stderr)
	}
}
