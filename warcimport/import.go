package warcimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// Options configure an import.
type Options struct {
	// MaxBody is the most body bytes kept of a record (crawler.Config's
	// MaxBody, --max-body); longer bodies are cut and marked truncated.
	MaxBody int64
	// StoreAll keeps the bodies of non-HTML captures too (--store-all).
	StoreAll bool
	// OnSkip, when set, is called with each record skipped because it
	// cannot be read, before the import goes on.
	OnSkip func(*archive.Error)
}

// Stats counts what an import did.
type Stats struct {
	// Captures are the captures stored: Versions as new versions,
	// Unchanged equal to the newest stored one, NoBody without a body to
	// keep; Failed of them had an HTTP status of 400 or more.
	Captures, Versions, Unchanged, NoBody, Failed int
	// Revisits are revisit records; Resolved those of them read back as
	// versions of their rows (profile identical-payload-digest, naming a
	// record stored earlier). The others add no version.
	Revisits, Resolved int
	// Skipped counts the records left out, by why.
	Skipped map[string]int
}

// importAhead is how many captures are read, decoded and parsed for
// links ahead of the one being stored.
const importAhead = 16

// read is one step of the reading goroutine: a capture ready to store, or
// what stopped the reading (io.EOF at the end).
type read struct {
	c   *webtable.Capture
	rev *archive.Capture // a revisit record, resolved against the store
	err error
}

// File imports the WARC file name into w, adding what it did to st: each
// capture becomes a version of its row at its capture time, with its
// anchors; nothing is fetched or queued. It stops at the first damaged
// record (an *archive.Error, or archive.ErrNotWARC; the captures before it
// are stored), a store failure, or ctx's end. One goroutine reads, decodes and extracts
// links while this one stores, in file order: what is stored when the
// reading fails is exactly the captures before the damage.
func File(ctx context.Context, w *webtable.WebTable, name string, o Options, st *Stats) error {
	r, err := archive.Open(name, o.MaxBody)
	if err != nil {
		return err
	}
	r.OnSkip = o.OnSkip
	r.Revisits = true
	if st.Skipped == nil {
		st.Skipped = map[string]int{}
	}
	reads := make(chan read, importAhead)
	stop := make(chan struct{})
	var counts archive.Counts
	go readAhead(r, o.StoreAll, reads, stop, &counts)
	defer func() {
		close(stop)
		for range reads { // wait for the reader to finish with the file
		}
		st.Revisits += counts.Revisits
		for k, n := range counts.Skipped {
			st.Skipped[k] += n
		}
	}()
	for next := range reads {
		if err := ctx.Err(); err != nil {
			return err
		}
		if errors.Is(next.err, io.EOF) {
			return nil
		}
		if next.err != nil {
			return next.err
		}
		if err := store(ctx, w, next, o.StoreAll, st); err != nil {
			return err
		}
	}
	return nil
}

// readAhead is File's reading goroutine: it sends each capture of r to
// reads, converted for the WebTable (a revisit as it is), then the error
// that ends the reading (io.EOF at the end), and returns early when stop
// closes. It closes r, sets *counts to r's counts and then closes reads.
func readAhead(r *archive.Reader, storeAll bool, reads chan<- read, stop <-chan struct{}, counts *archive.Counts) {
	defer close(reads)
	defer func() { *counts = r.Counts(); r.Close() }()
	for {
		c, err := r.Next()
		var next read
		switch {
		case err != nil:
			next.err = err
		case c.Revisit:
			next.rev = c
		default:
			next.c = toWebtable(c, storeAll)
		}
		select {
		case reads <- next:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// store stores one capture read, counting it in st: a revisit resolved
// against w first (skipped when the record it names is not stored), a
// capture whose URL cannot be keyed skipped. Its error is the store's.
func store(ctx context.Context, w *webtable.WebTable, next read, storeAll bool, st *Stats) error {
	c := next.c
	if next.rev != nil {
		full, ok, err := resolveRevisit(ctx, w, next.rev)
		if err != nil {
			return err
		}
		if !ok {
			st.Skipped["revisit of a record not stored"]++
			return nil
		}
		st.Resolved++
		c = toWebtable(full, storeAll)
	}
	if _, err := urlkey.Key(c.URL); err != nil {
		// NB: one odd URL in a large archive does not stop the import.
		st.Skipped["capture with a URL the WebTable cannot key"]++
		return nil
	}
	stored, err := w.Import(ctx, c)
	if err != nil {
		return err
	}
	st.Captures++
	switch stored {
	case webtable.NewVersion:
		st.Versions++
	case webtable.Unchanged:
		st.Unchanged++
	default:
		st.NoBody++
	}
	if c.Status >= 400 {
		st.Failed++
	}
	return nil
}

// toWebtable turns a WARC capture into what the WebTable stores, by the
// crawler's rules: the body of a 2xx HTML page (any page with storeAll)
// is kept, the links of an HTML page become anchors, a status of 400 or
// more is a failed fetch.
func toWebtable(c *archive.Capture, storeAll bool) *webtable.Capture {
	wc := &webtable.Capture{URL: c.URL, Time: c.Time, Status: c.Status, Header: c.Header, Truncated: c.Truncated, Rendered: c.Rendered}
	mt := crawler.MediaType(c.ContentType, c.Body)
	wc.MIME = mt
	switch {
	case c.Status >= 400:
		wc.Error = fmt.Sprintf("http status %d %s", c.Status, http.StatusText(c.Status))
		return wc
	case c.Status >= 300:
		return wc
	}
	html := crawler.IsHTML(mt)
	if html || storeAll {
		wc.Body = c.Body
	}
	if html {
		links, charset, err := crawler.PageLinks(c.Body, c.ContentType, c.URL)
		if err == nil {
			wc.Charset = charset
			for _, l := range links {
				wc.Anchors = append(wc.Anchors, webtable.Anchor{URL: l.URL, Text: l.Text})
			}
		}
		wc.Anchors = append(wc.Anchors, renderedAnchors(c, wc.Anchors)...)
	}
	return wc
}

// renderedAnchors are the links of c's rendered page (a conversion
// record read back) that its served HTML lacks: a crawl that rendered the
// page took the links of both.
func renderedAnchors(c *archive.Capture, served []webtable.Anchor) []webtable.Anchor {
	if c.Rendered == nil {
		return nil
	}
	links, _, err := crawler.PageLinks(c.Rendered, archive.RenderedType, c.URL)
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, a := range served {
		have[a.URL] = true
	}
	var out []webtable.Anchor
	for _, l := range links {
		if !have[l.URL] {
			have[l.URL] = true
			out = append(out, webtable.Anchor{URL: l.URL, Text: l.Text})
		}
	}
	return out
}
