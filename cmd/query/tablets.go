package main

import (
	"context"
	"fmt"
	"github.com/webtable/webtable/internal/jsonshape"
	"io"
)

const tabletsHelp = `query tablets [--json]

Lists the tablets of the WebTable: the row ranges that are stored, split and
scanned as units. A table starts as one tablet, which splits in two as it
grows past the split size (128 MiB); neighbours that shrink together under
a quarter of that merge again. Keys starting with "~frontier/" are not pages
but the crawl's frontier (the URLs waiting to be fetched), stored after every
page.

Example:
  query --db webtable-demo.db tablets
`

func runTablets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db string
	var asJSON bool
	fs := newFlagSet("tablets", &db)
	fs.BoolVar(&asJSON, "json", false, "")
	if err := parseNoArgs(fs, args, "tablets", ""); err != nil {
		return err
	}
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	tablets, err := w.Tablets(ctx)
	if err != nil {
		return err
	}
	out := newOutput(stdout, asJSON)
	if !asJSON {
		fmt.Fprintf(out.w, "%-32s %-32s %10s %10s\n", "START", "END", "SIZE", "ROWS")
	}
	unknown := false
	for _, t := range tablets {
		unknown = unknown || t.Bytes < 0 || t.Rows < 0
		if asJSON {
			err = out.json.Encode(jsonshape.TabletOf(t))
		} else {
			_, err = fmt.Fprintf(out.w, "%-32s %-32s %10s %10s\n", bound(t.Start, "(first)"), bound(t.End, "(last)"), known(t.Bytes, jsonshape.Size), known(t.Rows, count))
		}
		if err != nil {
			return err
		}
	}
	if unknown && !asJSON {
		fmt.Fprintf(out.w, "(? = not known here: the Cloud Bigtable client passes on tablet boundaries only, not their sizes)\n")
	}
	return out.flush()
}

// known shows a measure, or "?" where the store does not report it (Cloud
// Bigtable gives tablet boundaries only).
func known(n int64, show func(int64) string) string {
	if n < 0 {
		return "?"
	}
	return show(n)
}

func count(n int64) string { return fmt.Sprint(n) }

// bound shows a tablet boundary, naming the unbounded ends.
func bound(key, unbounded string) string {
	if key == "" {
		return unbounded
	}
	return printable(key)
}
