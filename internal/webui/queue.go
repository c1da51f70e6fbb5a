package webui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/webtable/webtable/urlkey"
)

// The queue over time is sampled by the server, not stored by the crawl:
// query serve counts the frontier and the due entries (keys only) every
// Options.QueueEvery and keeps the last queueKeep samples in memory. So the
// chart needs no new column, no write by the crawl and no change of the
// format; it works on any store query serve can read, a crawl's served
// one (crawl --serve) included, which is how a crawl is watched live; and
// a crawl that nobody watches pays nothing. What it costs: the chart
// starts when query serve starts, and is lost when it stops (Prometheus,
// fed by crawl --metrics, keeps the long history).

// queueKeep is how many samples the chart keeps: a day at one a minute.
const queueKeep = 1440

// queueSample is the queue at one moment.
type queueSample struct {
	At       time.Time
	Frontier int64 // frontier entries: pages queued to be fetched
	Due      int64 // due entries: pages of a continuous crawl to fetch again
	DueNow   int64 // of them, due by At
	DueDay   int64 // of them, due within a day of At
}

// queueHistory is the samples taken so far, oldest first.
type queueHistory struct {
	mu      sync.Mutex
	samples []queueSample
	took    time.Duration // the last sample's count
	err     error         // the last sample's, nil when it succeeded
}

// add keeps s, dropping the oldest beyond queueKeep.
func (h *queueHistory) add(s queueSample, took time.Duration, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.took, h.err = took, err
	if err != nil {
		return
	}
	if len(h.samples) == queueKeep {
		h.samples = append(h.samples[:0], h.samples[1:]...)
	}
	h.samples = append(h.samples, s)
}

// snapshot returns a copy of the samples and the last error.
func (h *queueHistory) snapshot() ([]queueSample, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]queueSample(nil), h.samples...), h.err
}

// sampleQueue counts the queue now and keeps the sample.
func (ui *UI) sampleQueue(ctx context.Context) error {
	began := time.Now()
	s := queueSample{At: ui.opts.Now()}
	err := func() error {
		n, err := ui.w.FrontierSize(ctx, 0, urlkey.Buckets)
		if err != nil {
			return err
		}
		d, err := ui.w.DueCounts(ctx, s.At)
		if err != nil {
			return err
		}
		s.Frontier, s.Due, s.DueNow, s.DueDay = n, d.Entries, d.Now, d.Day
		return nil
	}()
	if err != nil {
		err = fmt.Errorf("webui: counting the queue: %w", err)
	}
	ui.queue.add(s, time.Since(began), err)
	return err
}

// sampleQueueEvery samples the queue until Close: at once, then every
// QueueEvery, or ten times as long as the last count took, whichever is
// longer, so that a big frontier is not scanned without pause.
func (ui *UI) sampleQueueEvery() {
	defer ui.wg.Done()
	for {
		if err := ui.sampleQueue(ui.ctx); err != nil && ui.ctx.Err() == nil {
			ui.opts.Logf("%v", err)
		}
		ui.queue.mu.Lock()
		wait := max(ui.opts.QueueEvery, 10*ui.queue.took)
		ui.queue.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ui.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
