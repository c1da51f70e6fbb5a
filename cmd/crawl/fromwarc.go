package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// warcStats counts what an import did.
type warcStats struct {
	captures, versions, unchanged, noBody, failed int
	revisits, resolved                            int // revisit records; those read back as versions
	skipped                                       map[string]int
}

// importWARCs builds the WebTable from WARC files instead of the network:
// each capture becomes a version of its row at its capture time, with its
// anchors; nothing is fetched or queued. It stops at the first damaged
// record (the captures before it are stored) or store failure.
func importWARCs(ctx context.Context, o *options, stdout, stderr io.Writer) (err error) {
	w, err := openStore(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer func() { err = closeStore(w, o.db, err) }()
	st := warcStats{skipped: map[string]int{}}
	for _, name := range o.warcs {
		err := importWARC(ctx, w, name, o, &st, stderr)
		if err != nil {
			reportImport(stderr, &st)
			var ae *archive.Error
			switch {
			case errors.As(err, &ae), errors.Is(err, archive.ErrNotWARC):
				return fail(exitUsage, "%v (the captures before it are stored)", err)
			case ctx.Err() != nil:
				return fail(exitInterrupted, "stopped while reading %s; the captures read so far are stored", name)
			default:
				return fail(exitStoreFailed, "%v", err)
			}
		}
	}
	reportImport(stderr, &st)
	return nil
}

// reportImport writes the summary of an import.
func reportImport(stderr io.Writer, st *warcStats) {
	fmt.Fprintf(stderr, "read %d captures: %d new versions, %d unchanged, %d without a body to keep, %d failed (HTTP status 400 or more); %d revisits add no version",
		st.captures, st.versions, st.unchanged, st.noBody, st.failed, st.revisits-st.resolved)
	if st.resolved > 0 {
		fmt.Fprintf(stderr, "; %d revisits read as versions of their rows (identical-payload-digest)", st.resolved)
	}
	if len(st.skipped) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(st.skipped)) {
			parts = append(parts, fmt.Sprintf("%d %s", st.skipped[k], k))
		}
		fmt.Fprintf(stderr, "; skipped: %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(stderr)
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

// importWARC imports one file. One goroutine reads, decodes and extracts
// links while this one stores, in file order: what is stored when the
// reading fails is exactly the captures before the damage.
func importWARC(ctx context.Context, w *webtable.WebTable, name string, o *options, st *warcStats, stderr io.Writer) error {
	r, err := archive.Open(name, o.cfg.MaxBody)
	if err != nil {
		return err
	}
	r.OnSkip = func(e *archive.Error) { fmt.Fprintf(stderr, "crawl: skipping %v\n", e) }
	r.Revisits = true
	reads := make(chan read, importAhead)
	stop := make(chan struct{})
	var counts archive.Counts
	go func() {
		defer close(reads)
		defer func() { counts = r.Counts(); r.Close() }()
		for {
			c, err := r.Next()
			var next read
			switch {
			case err != nil:
				next.err = err
			case c.Revisit:
				next.rev = c
			default:
				next.c = toWebtable(c, o.cfg.StoreAll)
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
	}()
	defer func() {
		close(stop)
		for range reads { // wait for the reader to finish with the file
		}
		st.revisits += counts.Revisits
		for k, n := range counts.Skipped {
			st.skipped[k] += n
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
		c := next.c
		if next.rev != nil {
			full, ok, err := resolveRevisit(ctx, w, next.rev)
			if err != nil {
				return err
			}
			if !ok {
				st.skipped["revisit of a record not stored"]++
				continue
			}
			st.resolved++
			c = toWebtable(full, o.cfg.StoreAll)
		}
		if _, err := urlkey.Key(c.URL); err != nil {
			// NB: one odd URL in a large archive does not stop the import.
			st.skipped["capture with a URL the WebTable cannot key"]++
			continue
		}
		stored, err := w.Import(ctx, c)
		if err != nil {
			return err
		}
		st.captures++
		switch stored {
		case webtable.NewVersion:
			st.versions++
		case webtable.Unchanged:
			st.unchanged++
		default:
			st.noBody++
		}
		if c.Status >= 400 {
			st.failed++
		}
	}
	return nil
}

// toWebtable turns a WARC capture into what the WebTable stores, by the
// crawler's rules: the body of a 2xx HTML page (any page with storeAll)
// is kept, the links of an HTML page become anchors, a status of 400 or
// more is a failed fetch.
func toWebtable(c *archive.Capture, storeAll bool) *webtable.Capture {
	wc := &webtable.Capture{URL: c.URL, Time: c.Time, Status: c.Status, Header: c.Header, Truncated: c.Truncated}
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
	}
	return wc
}
