package main

import (
	"context"
	"fmt"
	"io"

	"github.com/webtable/webtable/webtable"
)

const getHelp = `query get URL|ROWKEY [flags]

Shows one page's row: its cells grouped by family, then column; the latest
version of each column unless --versions or --all-versions.

Flags:
  --column FAM:QUAL  only this column (contents:html, anchor:cnnsi.com, mime:type)
  --family FAM       only this family (anchor, contents, fetch, mime)
  --versions N       the N newest versions of each column
  --all-versions     every stored version
  --at TIME          the row as it was then: per column, the newest version at
                     or before TIME (microseconds since 1970, RFC 3339, or a
                     date such as 2026-01-02, meaning the end of that day, UTC)
  --json             JSON Lines: {"row":...,"cells":[{"column","timestamp","value"}]}
  --raw              with --column: write the newest value's bytes alone
  --db DIR           the store (default ./webtable.db)

Examples:
  query --db webtable-demo.db get http://www.cnn.com/
  query --db webtable-demo.db get com.cnn.www/ --family anchor
  query --db webtable-demo.db get http://www.cnn.com/ --column contents:html --raw > page.html
`

func runGet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		db, column, family, at string
		versions               int
		all, asJSON, raw       bool
	)
	fs := newFlagSet("get", &db)
	fs.StringVar(&column, "column", "", "")
	fs.StringVar(&family, "family", "", "")
	fs.IntVar(&versions, "versions", 0, "")
	fs.BoolVar(&all, "all-versions", false, "")
	fs.StringVar(&at, "at", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&raw, "raw", false, "")
	arg, err := parseOneArg(fs, args, "get", "URL or row key")
	if err != nil {
		return err
	}
	q := webtable.Query{Family: family, Column: column, Versions: versions}
	// NB: every check runs before any flag changes q, so that no
	// combination skips the checks after it.
	switch {
	case versions < 0:
		return usagef("--versions %d: want 1 or more", versions)
	case all && versions > 0:
		return usagef("--versions and --all-versions exclude each other")
	case raw && column == "":
		return usagef("--raw writes one value: name it with --column (e.g. --column contents:html)")
	case raw && asJSON:
		return usagef("--raw and --json exclude each other")
	case raw && (all || versions > 0):
		return usagef("--raw writes the newest value alone: drop --versions and --all-versions (query versions lists them)")
	}
	if all {
		q.Versions = -1
	}
	if at != "" {
		if q.At, err = parseAt(at); err != nil {
			return err
		}
	}
	w, key, err := openRow(ctx, db, arg)
	if err != nil {
		return err
	}
	defer w.Close()
	if raw {
		q.Versions = 1
	}
	row, err := w.Get(ctx, key, q)
	if err != nil {
		return err
	}
	if len(row.Cells) == 0 {
		return notFound(key, q)
	}
	if raw {
		_, err := stdout.Write(row.Cells[0].Value)
		return err
	}
	out := newOutput(stdout, asJSON)
	if err := out.row(row, false); err != nil {
		return err
	}
	return out.flush()
}

// notFound says why get found nothing, naming the restriction that left
// the row empty.
func notFound(key string, q webtable.Query) error {
	what := fmt.Sprintf("no row %q", key)
	switch {
	case q.Column != "":
		what = fmt.Sprintf("row %q has no column %s", key, q.Column)
	case q.Family != "":
		what = fmt.Sprintf("row %q has no cells in family %s", key, q.Family)
	}
	if q.At > 0 {
		what += fmt.Sprintf(" at or before %s", formatTime(q.At))
	}
	return fmt.Errorf("%w: %s", errNotFound, what)
}
