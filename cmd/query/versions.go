package main

import (
	"context"
	"fmt"
	"github.com/webtable/webtable/internal/jsonshape"
	"io"
)

const versionsHelp = `query versions URL|ROWKEY [--json]

Lists every stored version of a page's HTML (contents:html), newest first:
when it was fetched (RFC 3339, UTC), its size, its SHA-256 and HTTP status.
A crawl stores a new version only when the page changed.

Example:
  query --db webtable-demo.db versions http://www.cnn.com/
`

func runVersions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db string
	var asJSON bool
	fs := newFlagSet("versions", &db)
	fs.BoolVar(&asJSON, "json", false, "")
	arg, err := parseOneArg(fs, args, "versions", "URL or row key")
	if err != nil {
		return err
	}
	w, key, err := openRow(ctx, db, arg)
	if err != nil {
		return err
	}
	defer w.Close()
	vs, err := w.Versions(ctx, key)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return fmt.Errorf("%w: row %q has no stored HTML", errNotFound, key)
	}
	out := newOutput(stdout, asJSON)
	if !asJSON {
		fmt.Fprintf(out.w, "%-24s  %10s  %-20s  %s\n", "TIME", "SIZE", "SHA256 (--json: in full)", "STATUS")
	}
	for _, v := range vs {
		if asJSON {
			err = out.json.Encode(jsonshape.VersionOf(v))
		} else {
			_, err = fmt.Fprintf(out.w, "%-24s  %10s  %-24s  %d\n", formatTime(v.Timestamp), jsonshape.Size(int64(v.Size)), cut(v.SHA256, 23)+"…", v.Status)
		}
		if err != nil {
			return err
		}
	}
	return out.flush()
}
