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

Copies the whole WebTable of --db into DEST: every row, every stored
version, with its timestamp. DEST is a directory (created if absent) or
bigtable://PROJECT/INSTANCE[/TABLE] for Cloud Bigtable, where its table and
column families are created when absent. --db is only read. Running it
again after an interruption is safe: cells are merged, not duplicated.

Flags:
  --to DEST      where to copy to (required)
  --versions N   HTML versions DEST keeps per page (default 3; match the crawl's --versions)
  --db DIR       the store to copy from (default ./webtable.db)

Example:
  query --db webtable.db export --to bigtable://my-project/my-instance
`

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, to string
	var versions int
	fs := newFlagSet("export", &db)
	fs.StringVar(&to, "to", "", "")
	fs.IntVar(&versions, "versions", webtable.DefaultVersions, "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("export", pos, "--to"); err != nil {
		return err
	}
	switch {
	case to == "":
		return usagef("export needs --to DEST (a directory or bigtable://PROJECT/INSTANCE)")
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
