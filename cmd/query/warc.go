package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// warcExport is what export --warc was asked for.
type warcExport struct {
	warc, cdxj string
	ranges     []urlkey.Range
	sel        webtable.Selection
	dedupe     bool // --dedupe: revisit records for payloads written already
}

// exportWARC writes the chosen versions of the rows in x.ranges of db as
// a gzipped WARC file, and its CDXJ index when asked. The files are
// written under temporary names and renamed when complete, so that an
// interrupted export leaves no half file under the name asked for.
func exportWARC(ctx context.Context, db string, x warcExport, stdout, stderr io.Writer) (err error) {
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	f, err := os.Create(x.warc + ".part")
	if err != nil {
		return fmt.Errorf("%w --warc: %v", errSetup, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	aw, err := archive.NewWriter(bw, filepath.Base(x.warc), "webtable query export")
	if err != nil {
		return err
	}
	defer aw.Close()
	if x.dedupe {
		aw.Dedupe()
	}
	n := 0
	err = w.Captures(ctx, x.ranges, x.sel, func(c *webtable.Capture) error {
		n++
		return aw.Write(&archive.Capture{
			URL: c.URL, Time: c.Time, Status: c.Status, Header: c.Header,
			MIME: c.MIME, Body: c.Body, Truncated: c.Truncated, Rendered: c.Rendered,
		})
	})
	if err != nil {
		return fmt.Errorf("export stopped after %d records: %w", n, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", x.warc, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", x.warc, err)
	}
	if x.cdxj != "" {
		if err := writeIndex(x.cdxj, aw); err != nil {
			return err
		}
	}
	if err := os.Rename(f.Name(), x.warc); err != nil {
		return fmt.Errorf("writing %s: %w", x.warc, err)
	}
	fmt.Fprintf(stdout, "wrote %d records (%d bytes) to %s\n", n, aw.Size(), x.warc)
	if x.dedupe {
		fmt.Fprintf(stdout, "%d of them revisit records (a body already in the file)\n", aw.Revisits())
	}
	if x.cdxj != "" {
		fmt.Fprintf(stdout, "wrote its index to %s\n", x.cdxj)
	}
	return nil
}

// writeIndex writes the CDXJ index of aw to the file name, replacing it
// only once it is complete.
func writeIndex(name string, aw *archive.Writer) error {
	f, err := os.Create(name + ".part")
	if err != nil {
		return fmt.Errorf("%w --cdxj: %v", errSetup, err)
	}
	bw := bufio.NewWriter(f)
	err = aw.WriteIndex(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
