package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/render"
	"github.com/webtable/webtable/webtable"
)

// renderFlags are the flags of the browser that renders pages.
type renderFlags struct {
	tabs    int
	timeout time.Duration
	exec    string // the browser program
}

// addRenderFlags declares --render, --render-tabs, --render-timeout and
// --screenshots.
func addRenderFlags(fs *flag.FlagSet, o *options) {
	c := &o.cfg
	fs.Func("render", "load pages in headless chromium after fetching them, to see the links and text their scripts build: `MODE` never (the default), always, or auto (only pages whose HTML is an empty shell: a script, at most 200 characters of text and 2 links)", func(s string) error {
		m, err := crawler.ParseRenderMode(s)
		if err != nil {
			return fmt.Errorf("%q: want never, always or auto", s)
		}
		c.Render = m
		return nil
	})
	fs.IntVar(&o.render.tabs, "render-tabs", render.DefaultTabs, "with --render: render at most `N` pages at once, each in its own tab of one browser")
	fs.DurationVar(&o.render.timeout, "render-timeout", render.DefaultTimeout, "with --render: stop waiting for a page to go quiet after `DUR` and keep its document as it is then")
	fs.StringVar(&o.render.exec, "render-browser", render.DefaultExec, "with --render: the chromium `PROGRAM` to run (Debian's by default; never downloaded)")
	fs.BoolVar(&c.Screenshots, "screenshots", false, "with --render: store a PNG of each rendered page's first screen (1280x800), shown by query serve")
}

// check rejects render flags that cannot work together.
func (f *renderFlags) check(o *options) error {
	switch {
	case f.tabs < 1:
		return fmt.Errorf("--render-tabs %d: give at least 1", f.tabs)
	case f.timeout <= 0:
		return fmt.Errorf("--render-timeout %v: give a positive duration (e.g. 15s)", f.timeout)
	case o.cfg.Screenshots && o.cfg.Render == crawler.RenderNever:
		return fmt.Errorf("--screenshots needs --render always or --render auto")
	}
	return nil
}

// startRenderer sets cfg.Renderer to a pool of browser tabs when cfg
// renders, creating the screenshot family when asked for, and returns
// what stops the browser.
func startRenderer(ctx context.Context, o *options, w *webtable.WebTable, cfg *crawler.Config, stderr io.Writer) (func(), error) {
	if cfg.Render == crawler.RenderNever {
		return func() {}, nil
	}
	exe, err := render.LookPath(o.render.exec)
	if err != nil {
		return nil, fail(exitUsage, "--render needs chromium at %s (Debian: apt-get install chromium): %v", exe, err)
	}
	if cfg.Screenshots {
		if err := w.EnsureScreenshots(ctx); err != nil {
			return nil, fail(exitStoreFailed, "%v", err)
		}
	}
	pool, err := render.New(render.Options{
		Exec: exe, Tabs: o.render.tabs, Timeout: o.render.timeout,
		Log: func(line string) { fmt.Fprintf(stderr, "crawl: %s\n", line) },
	})
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	cfg.Renderer = pool
	return func() { pool.Close() }, nil
}
