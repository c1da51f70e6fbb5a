package render

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/webtable/webtable/crawler"
)

// ErrClosed is returned by Render after Close.
var ErrClosed = errors.New("render: pool closed")

// Pool renders pages in one browser with a fixed number of tabs. It
// implements [crawler.Renderer]; its methods are safe for concurrent use.
// The browser starts with the first render.
type Pool struct {
	opts  Options
	slots chan *slot // idle tab slots; a render holds one
	cache *cache     // subresources shared by the pages (cache.go)

	mu       sync.Mutex
	cur      *chromeBrowser // the browser new renders use; nil until started
	gen      int
	closed   bool
	restarts int
	memCheck time.Time // when the memory was last read
}

// slot is one of the pool's tabs, reopened in the current browser when its
// own was lost.
type slot struct{ t *tab }

var _ crawler.Renderer = (*Pool)(nil)

// New returns a pool for opts; nothing starts until the first render.
func New(opts Options) (*Pool, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pool{opts: opts, slots: make(chan *slot, opts.Tabs), cache: newCache()}
	for range opts.Tabs {
		p.slots <- &slot{}
	}
	return p, nil
}

// Options returns the pool's options, defaults filled in.
func (p *Pool) Options() Options { return p.opts }

// Restarts reports how many times the browser was replaced.
func (p *Pool) Restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// PGID returns the process group of the current browser; 0 when none runs.
func (p *Pool) PGID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return 0
	}
	return p.cur.pgid
}

// Render renders one page in a free tab, waiting for one. It fails when
// the tab crashed or the page's scripts never let the document be read
// (the tab is replaced), or when the browser cannot be started. A page
// whose browser died under it (it crashed, or was killed) is rendered
// again, once, in a new browser.
func (p *Pool) Render(ctx context.Context, job crawler.RenderJob) (crawler.RenderResult, error) {
	var s *slot
	select {
	case s = <-p.slots:
	case <-ctx.Done():
		return crawler.RenderResult{}, fmt.Errorf("render: waiting for a tab: %w", ctx.Err())
	}
	defer func() { p.slots <- s }()
	res, browserDied, err := p.renderIn(ctx, s, job)
	if browserDied && ctx.Err() == nil {
		res, _, err = p.renderIn(ctx, s, job)
	}
	return res, err
}

// renderIn renders job in slot s of the current browser; browserDied
// reports a failure because the browser no longer answers (it is being
// replaced).
func (p *Pool) renderIn(ctx context.Context, s *slot, job crawler.RenderJob) (res crawler.RenderResult, browserDied bool, err error) {
	b, err := p.acquire()
	if err != nil {
		return crawler.RenderResult{}, false, err
	}
	defer p.release(b)
	if s.t != nil && s.t.b != b {
		s.t = nil // its browser was replaced
	}
	if s.t == nil {
		if s.t, err = newTab(b, p.cache); err != nil {
			return crawler.RenderResult{}, !p.check(b), err
		}
	}
	res, err = s.t.render(ctx, job, p.opts)
	if err != nil {
		// NB: any error: a browser that died under the page fails its
		// commands with errors of every kind.
		if alive := p.check(b); !alive {
			s.t = nil
			return res, true, err
		}
		if errors.Is(err, errTabDead) {
			s.t.close()
			s.t = nil
		}
	}
	p.checkMemory(b)
	return res, false, err
}

// acquire returns the current browser, starting one when none runs, and
// counts a user of it.
func (p *Pool) acquire() (*chromeBrowser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.cur != nil && p.cur.ctx.Err() != nil {
		// Its process ended (chromedp saw it): replaced at once.
		p.cur.draining = true
		p.cur, p.restarts = nil, p.restarts+1
	}
	if p.cur == nil {
		p.gen++
		b, err := startBrowser(p.opts, p.gen)
		if err != nil {
			return nil, err
		}
		p.cur = b
	}
	p.cur.users++
	return p.cur, nil
}

// release ends a use of b; a replaced browser is killed by its last user.
func (p *Pool) release(b *chromeBrowser) {
	p.mu.Lock()
	b.users--
	kill := b.draining && b.users == 0
	p.mu.Unlock()
	if kill {
		b.kill()
	}
}

// replace takes b out of use: new renders start another browser, and b is
// killed once its renders are over.
func (p *Pool) replace(b *chromeBrowser, why string) {
	p.mu.Lock()
	if p.cur != b || b.draining {
		p.mu.Unlock()
		return
	}
	p.cur = nil
	b.draining = true
	p.restarts++
	p.mu.Unlock()
	if p.opts.Log != nil {
		p.opts.Log(fmt.Sprintf("render: restarting the browser: %s", why))
	}
}

// check replaces b when it no longer answers (it crashed or hangs), and
// reports whether it answered.
func (p *Pool) check(b *chromeBrowser) bool {
	if !b.alive(2 * time.Second) {
		p.replace(b, "it stopped answering")
		return false
	}
	return true
}

// checkMemory replaces b when its processes use more than MaxMemory. The
// memory is read at most once a second.
func (p *Pool) checkMemory(b *chromeBrowser) {
	p.mu.Lock()
	if time.Since(p.memCheck) < time.Second {
		p.mu.Unlock()
		return
	}
	p.memCheck = time.Now()
	p.mu.Unlock()
	if mem := b.memory(); mem > p.opts.MaxMemory {
		p.replace(b, fmt.Sprintf("its processes use %d MiB, more than %d MiB", mem>>20, p.opts.MaxMemory>>20))
	}
}

// Close kills the browser and its processes; renders in flight fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	b := p.cur
	p.cur = nil
	p.mu.Unlock()
	if b != nil {
		b.kill()
	}
	return nil
}
