package main

import (
	"context"
	"fmt"
	"github.com/webtable/webtable/internal/jsonshape"
	"io"

	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

const statsHelp = `query stats [--domain D] [--json]

Counts, for the whole table or one domain: rows, pages fetched, pages whose
last fetch failed, pages still queued, stored HTML versions, and the bytes
and cells of each column family.

Example:
  query --db webtable-demo.db stats --domain cnn.com
`

const errorsHelp = `query errors [--domain D] [--limit N] [--json]

Lists the URLs whose last fetch failed, in key order, with the HTTP status
(0 when no response came) and the error.

Example:
  query --db webtable-demo.db errors --domain cnn.com
`

type jsonStats struct {
	Domain   string           `json:"domain,omitempty"`
	Rows     int64            `json:"rows"`
	Fetched  int64            `json:"fetched"`
	Failed   int64            `json:"failed"`
	Queued   int64            `json:"queued"`
	Frontier int64            `json:"frontier"`
	Versions int64            `json:"versions"`
	Bytes    map[string]int64 `json:"bytes"`
	Cells    map[string]int64 `json:"cells"`
}

func domainRanges(domain string) ([]urlkey.Range, error) {
	if domain == "" {
		return nil, nil
	}
	return scanRanges(domain, "", "", "", "")
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, domain string
	var asJSON bool
	fs := newFlagSet("stats", &db)
	fs.StringVar(&domain, "domain", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("stats", pos, "--domain"); err != nil {
		return err
	}
	ranges, err := domainRanges(domain)
	if err != nil {
		return err
	}
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	s, err := w.Stats(ctx, ranges)
	if err != nil {
		return err
	}
	out := newOutput(stdout, asJSON)
	if asJSON {
		err = out.json.Encode(jsonStats{Domain: domain, Rows: s.Rows, Fetched: s.Fetched, Failed: s.Failed,
			Queued: s.Queued, Frontier: s.Frontier, Versions: s.Versions, Bytes: s.Bytes, Cells: s.Cells})
		if err != nil {
			return err
		}
		return out.flush()
	}
	scope := "whole table"
	if domain != "" {
		scope = "domain " + domain
	}
	fmt.Fprintf(out.w, "%s\n", scope)
	fmt.Fprintf(out.w, "  %-10s %d\n  %-10s %d\n  %-10s %d\n  %-10s %d\n  %-10s %d\n",
		"rows", s.Rows, "fetched", s.Fetched, "failed", s.Failed, "queued", s.Queued, "versions", s.Versions)
	if domain == "" {
		// The frontier's entries are rows of their own (see
		// webtable.FrontierPrefix), not pages: counted apart.
		fmt.Fprintf(out.w, "  %-10s %s\n", "frontier", frontierLine(s))
	}
	fmt.Fprintf(out.w, "  %-10s %10s %10s\n", "family", "bytes", "cells")
	for _, f := range webtable.Families {
		fmt.Fprintf(out.w, "  %-10s %10s %10d\n", f, size(s.Bytes[f]), s.Cells[f])
	}
	return out.flush()
}

func runErrors(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, domain string
	var limit int
	var asJSON bool
	fs := newFlagSet("errors", &db)
	fs.StringVar(&domain, "domain", "", "")
	fs.IntVar(&limit, "limit", 0, "")
	fs.BoolVar(&asJSON, "json", false, "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("errors", pos, "--domain"); err != nil {
		return err
	}
	if limit < 0 {
		return usagef("--limit %d: want 0 (no limit) or more", limit)
	}
	ranges, err := domainRanges(domain)
	if err != nil {
		return err
	}
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	out := newOutput(stdout, asJSON)
	err = w.Errors(ctx, ranges, limit, func(f webtable.Failure) bool {
		t := ""
		if f.Fetch.Fetched() {
			t = f.Fetch.Time.UTC().Format(timeJSON)
		}
		if asJSON {
			return out.ok(out.json.Encode(jsonshape.FailureOf(f.Row, f.Fetch)))
		}
		_, err := fmt.Fprintf(out.w, "%s\n  status %d  %s  %s\n", printable(f.Fetch.URL), f.Fetch.Status, t, printable(f.Fetch.Error))
		return out.ok(err)
	})
	return out.close(err)
}

// frontierLine says what the frontier's entries are. NB: an entry is
// counted by its key alone; a URL queued by two pages saved at the same
// moment has two entries, and the one left after its page is fetched is
// dropped only when a crawl reads it. The queued pages are counted
// exactly (one state per page row), so entries beyond them are those.
func frontierLine(s webtable.Stats) string {
	if extra := s.Frontier - s.Queued; extra > 0 {
		return fmt.Sprintf("%d entries for the %d queued pages (%d repeat a page or name one already fetched: a crawl drops them as it reads them)", s.Frontier, s.Queued, extra)
	}
	return fmt.Sprintf("%d entries waiting to be fetched", s.Frontier)
}
