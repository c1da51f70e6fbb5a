package main

import (
	"context"
	"io"
	"strings"

	"github.com/webtable/webtable/internal/keyspace"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

const scanHelp = `query scan [--domain D | --host H | --prefix P | --start K --end K] [flags]

Lists rows in key order, the latest version of each column. With no range,
the whole table. A scan that matches nothing prints nothing.

Ranges:
  --domain D   a domain with its subdomains and ports: --domain cnn.com covers
               com.cnn/..., com.cnn.www/..., com.cnn:8080/... but not com.cnnsi/
  --host H     one host on any port, no subdomains: --host www.cnn.com
  --prefix P   a URL prefix (http://www.cnn.com/2024/) or a raw key prefix
               (com.cnn.www/2024/)
  --start K    first row key (inclusive); --end K: stop before this key

Flags:
  --family F   only cells of this family (anchor, contents, fetch, mime)
  --column C   only this column (family:qualifier)
  --at TIME    every row as it was then: per column, the newest version at or
               before TIME (microseconds since 1970, RFC 3339, or a date such
               as 2026-01-02, meaning the end of that day, UTC); rows with
               nothing stored by then are left out
  --limit N    stop after N rows
  --keys-only  list row keys only (never reads values)
  --sort rank  the rows of the range with the highest rank:page (index rank),
               best first: --limit of them (default 20), in bounded memory
  --dups       the clusters of duplicates in the range (index dups): each
               representative (dup:of), then its members
  --json       JSON Lines, one row per line
  --db DIR     the store (default ./webtable.db)

Examples:
  query --db webtable-demo.db scan --domain cnn.com --keys-only
  query --db webtable-demo.db scan --host www.cnn.com --family anchor
  query --db webtable-demo.db scan --domain cnn.com --at 2026-01-02T15:04:05Z
`

func runScan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		db, domain, host, prefix, start, end, family, column, at string
		limit                                                    int64
		keysOnly, asJSON, dups                                   bool
		sortBy                                                   string
	)
	fs := newFlagSet("scan", &db)
	fs.StringVar(&domain, "domain", "", "")
	fs.StringVar(&host, "host", "", "")
	fs.StringVar(&prefix, "prefix", "", "")
	fs.StringVar(&start, "start", "", "")
	fs.StringVar(&end, "end", "", "")
	fs.StringVar(&family, "family", "", "")
	fs.StringVar(&column, "column", "", "")
	fs.StringVar(&at, "at", "", "")
	fs.Int64Var(&limit, "limit", 0, "")
	fs.BoolVar(&keysOnly, "keys-only", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.StringVar(&sortBy, "sort", "", "")
	fs.BoolVar(&dups, "dups", false, "")
	if err := parseNoArgs(fs, args, "scan", "--prefix"); err != nil {
		return err
	}
	if limit < 0 {
		return usagef("--limit %d: want 0 (no limit) or more", limit)
	}
	ranges, err := scanRanges(domain, host, prefix, start, end)
	if err != nil {
		return err
	}
	if sortBy != "" && sortBy != "rank" {
		return usagef("--sort %q: the one order is rank", sortBy)
	}
	if (sortBy != "" || dups) && (family != "" || column != "" || keysOnly || at != "" || sortBy != "" && dups) {
		return usagef("--sort rank and --dups read their own columns: drop --family, --column, --keys-only, --at (and one of the two)")
	}
	q := webtable.Query{Family: family, Column: column, KeysOnly: keysOnly}
	if at != "" {
		if q.At, err = parseAt(at); err != nil {
			return err
		}
	}
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	switch {
	case sortBy == "rank":
		return scanTopRank(ctx, w, ranges, int(limit), asJSON, stdout)
	case dups:
		return scanDups(ctx, w, ranges, limit, asJSON, stdout)
	}
	out := newOutput(stdout, asJSON)
	err = w.Scan(ctx, ranges, q, limit, func(r webtable.Row) bool { return out.ok(out.row(r, keysOnly)) })
	return out.close(err)
}

// scanRanges turns the range flags into row-key ranges; at most one kind
// of range may be given.
func scanRanges(domain, host, prefix, start, end string) ([]urlkey.Range, error) {
	given := 0
	for _, s := range []string{domain, host, prefix, start + end} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return nil, usagef("give one of --domain, --host, --prefix or --start/--end")
	}
	switch {
	case domain != "":
		rs := urlkey.DomainRanges(domain)
		if len(rs) == 0 {
			return nil, usagef("--domain %q is not a domain name (want e.g. cnn.com)", domain)
		}
		return rs, nil
	case host != "":
		rs := urlkey.HostRanges(host)
		if len(rs) == 0 {
			return nil, usagef("--host %q is not a host name (want e.g. www.cnn.com)", host)
		}
		return rs, nil
	case prefix != "":
		if strings.Contains(prefix, "://") {
			r, err := urlkey.PrefixRange(prefix)
			if err != nil {
				return nil, usagef("--prefix: %v", err)
			}
			return []urlkey.Range{r}, nil
		}
		return []urlkey.Range{{Start: prefix, End: keyspace.PrefixEnd(prefix)}}, nil
	case start != "" || end != "":
		if end != "" && start >= end {
			return nil, usagef("--start %q must sort before --end %q", start, end)
		}
		return []urlkey.Range{{Start: start, End: end}}, nil
	}
	return nil, nil
}
