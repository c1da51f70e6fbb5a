package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dustin/go-humanize"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

const exportHelp = `query export --to DEST [--versions N]
query export --warc FILE.warc.gz [--cdxj FILE.cdxj]
             [--domain D | --host H | --prefix P] [--all-versions | --at TIME]

With --to, copies the whole WebTable of --db into DEST: every row, every
stored version, with its timestamp. DEST is a directory (created if absent)
or bigtable://PROJECT/INSTANCE[/TABLE] for Cloud Bigtable, where its table
and column families are created when absent. Running it again after an
interruption is safe: cells are merged, not duplicated.

With --warc, writes the stored pages as a web archive (WARC 1.1, gzipped),
the file format of web archiving tools (Heritrix, wget --warc-file, pywb,
Common Crawl): one response record per page version, with the URL fetched,
the fetch time (milliseconds), the HTTP status line and headers and the
body. "crawl --from-warc FILE" reads it back into a WebTable.
--db is only read.

Flags:
  --to DEST        where to copy to
  --versions N     HTML versions DEST keeps per page (default 3; match the crawl's --versions)
  --warc FILE      write a WARC file instead (name it .warc.gz)
  --cdxj FILE      with --warc: also write its CDXJ index (what pywb replays from)
  --domain D, --host H, --prefix P
                   with --warc: only these rows (see query scan --help)
  --all-versions   with --warc: every stored version of each page (default: the latest)
  --at TIME        with --warc: each page as it was then (same forms as get --at)
  --dedupe         with --warc: write a body already in the file once; later
                   copies are revisit records naming the first (WARC-Refers-To-*)
  --db DIR         the store to read (default ./webtable.db)

Examples:
  query --db webtable.db export --to bigtable://my-project/my-instance
  query --db webtable-demo.db export --warc demo.warc.gz --cdxj demo.cdxj --all-versions
  query --db webtable-demo.db export --warc demo.warc.gz --all-versions --dedupe
`

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, to, domain, host, prefix, at string
	var x warcExport
	var versions int
	fs := newFlagSet("export", &db)
	fs.StringVar(&to, "to", "", "")
	fs.IntVar(&versions, "versions", webtable.DefaultVersions, "")
	fs.StringVar(&x.warc, "warc", "", "")
	fs.StringVar(&x.cdxj, "cdxj", "", "")
	fs.StringVar(&domain, "domain", "", "")
	fs.StringVar(&host, "host", "", "")
	fs.StringVar(&prefix, "prefix", "", "")
	fs.BoolVar(&x.sel.All, "all-versions", false, "")
	fs.BoolVar(&x.dedupe, "dedupe", false, "")
	fs.StringVar(&at, "at", "", "")
	if err := parseNoArgs(fs, args, "export", "--to"); err != nil {
		return err
	}
	if x.warc != "" {
		switch {
		case to != "":
			return usagef("--warc and --to exclude each other: --to copies the table, --warc writes a web archive")
		case x.sel.All && at != "":
			return usagef("--all-versions and --at exclude each other")
		}
		var err error
		if at != "" {
			if x.sel.At, err = parseAt(at); err != nil {
				return err
			}
		}
		if x.ranges, err = scanRanges(domain, host, prefix, "", ""); err != nil {
			return err
		}
		return exportWARC(ctx, db, x, stdout, stderr)
	}
	if x.cdxj != "" || domain != "" || host != "" || prefix != "" || x.sel.All || at != "" || x.dedupe {
		return usagef("--cdxj, --domain, --host, --prefix, --all-versions, --at and --dedupe go with --warc FILE")
	}
	switch {
	case to == "":
		return usagef("export needs --to DEST (a directory or bigtable://PROJECT/INSTANCE) or --warc FILE.warc.gz")
	case versions < 1:
		return usagef("--versions %d: keep at least 1 version", versions)
	case !stores.IsCloud(to) && !stores.IsCloud(db) && filepath.Clean(to) == filepath.Clean(db):
		return usagef("--to %s is the store being read: name another", to)
	}
	src, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := stores.Open(ctx, to, stores.ForCrawl, webtable.Options{Versions: versions})
	if err != nil {
		return fmt.Errorf("%w %s: %v", errSetup, to, err)
	}
	st, err := webtable.Copy(ctx, dst, src, func(s webtable.CopyStats) {
		fmt.Fprintf(stderr, "copied %d rows so far\n", s.Rows)
	})
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("export stopped after %d rows (running it again resumes)", st.Rows), err)
	}
	fmt.Fprintf(stdout, "copied %d rows, %d cells, %s of values from %s to %s\n", st.Rows, st.Cells, humanize.IBytes(uint64(st.Bytes)), db, to)
	return nil
}
