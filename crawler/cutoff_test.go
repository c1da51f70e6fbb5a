package crawler

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// TestCutOff: the cut-off ends grace after the interrupt, names itself as
// the cause, and never ends once released before the interrupt.
func TestCutOff(t *testing.T) {
	interrupt, stop := context.WithCancel(context.Background())
	cut, release := CutOff(interrupt, 20*time.Millisecond)
	defer release()
	select {
	case <-cut.Done():
		t.Fatal("cut off before the interrupt")
	default:
	}
	stop()
	select {
	case <-cut.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not cut off 10s after the interrupt, with a grace of 20ms")
	}
	if got := context.Cause(cut).Error(); got != "the store did not answer within 20ms of the interrupt" {
		t.Errorf("cause = %q", got)
	}

	interrupt, stop = context.WithCancel(context.Background())
	cut, release = CutOff(interrupt, time.Nanosecond)
	release()
	stop()
	if cut.Err() != nil {
		t.Errorf("released cut-off ended: %v", context.Cause(cut))
	}
	if cut, _ := CutOff(interrupt, 0); cut.Done() != nil {
		t.Error("a grace of 0 gave a context that can end")
	}
}

// hungSaves is a store whose SavePage, once the run is interrupted, never
// answers until its context ends.
type hungSaves struct {
	*crawlertest.MemStore
	interrupt func()
}

func (h hungSaves) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	h.interrupt()
	<-ctx.Done()
	return crawlstore.SaveResult{}, ctx.Err()
}

// TestStoreGraceEndsHungStore: after Ctrl-C a store call that does not
// answer is ended Config.StoreGrace later, and the run fails with ErrStore
// saying so, instead of waiting for ever.
func TestStoreGraceEndsHungStore(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{"/": page("a")})
	cfg := w.config()
	cfg.StoreGrace = 50 * time.Millisecond
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	c, err := New(cfg, hungSaves{crawlertest.NewMemStore(), interrupt})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, []string{"http://a.test/"})
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waiting for the hung store 30s after the interrupt (grace 50ms)")
	}
	if !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "the store did not answer within 50ms of the interrupt") {
		t.Errorf("Run = %v, want ErrStore naming the cut-off", err)
	}
}
