package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

const statsHelp = `query stats [--domain D] [--by-origin] [--top N] [--json]

Counts, for the whole table or one domain: rows, pages fetched, pages whose
last fetch failed, pages still queued, stored HTML versions, and the bytes
and cells of each column family.

--by-origin adds the queued pages counted by origin (scheme, host and port:
https://docs.python.org), the N origins with most (--top, default 20; all
with --json), each with why the last crawl left them queued when it did so
on purpose (unreachable, robots.txt unavailable, the server asked to wait,
max pages per host) and when they may be tried again. An origin queued with
no reason was not reached by the last crawl (it stopped, or was stopped).

A crawl split between processes (crawl --shard I/N) adds one line per shard:
its state (working, idle or finished; running or stopped with --continuous),
the pages it fetched and its last heartbeat. A shard that says it is at work
but has written no heartbeat for longer than its --shard-timeout is STALE:
killed, or cut off from the store.

Examples:
  query --db webtable-demo.db stats --domain cnn.com
  query --db webtable.db stats --by-origin --top 5
`

const errorsHelp = `query errors [--domain D] [--limit N] [--json]

Lists the URLs whose last fetch failed, in key order, with the HTTP status
(0 when no response came) and the error.

Example:
  query --db webtable-demo.db errors --domain cnn.com
`

// jsonStats is what query stats --json prints: the counts of
// jsonshape.Stats, and what only query stats reads.
type jsonStats struct {
	Domain string `json:"domain,omitempty"`
	jsonshape.Stats
	// HeldBack counts the pages the last crawl left queued on purpose
	// (whole table only); Origins lists the queued pages by origin
	// (--by-origin only).
	HeldBack int64        `json:"held_back"`
	Origins  []jsonOrigin `json:"origins,omitempty"`
	// Due says when the pages of a continuous crawl are due again (whole
	// table only; absent for other crawls).
	Due *jsonDue `json:"due,omitempty"`
	// Shards lists the records of the shards of a crawl split between
	// processes (whole table only; absent for a crawl of one process).
	Shards []jsonShard `json:"shards,omitempty"`
}

// jsonOrigin is one origin's queued pages in query stats --by-origin.
type jsonOrigin struct {
	Origin string `json:"origin"`
	Queued int64  `json:"queued"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	Until  string `json:"until,omitempty"`
}

func domainRanges(domain string) ([]urlkey.Range, error) {
	if domain == "" {
		return nil, nil
	}
	return scanRanges(domain, "", "", "", "")
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, domain string
	var asJSON, byOrigin bool
	top := 20
	fs := newFlagSet("stats", &db)
	fs.StringVar(&domain, "domain", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&byOrigin, "by-origin", false, "")
	fs.IntVar(&top, "top", top, "")
	if err := parseNoArgs(fs, args, "stats", "--domain"); err != nil {
		return err
	}
	if top < 1 {
		return usagef("--top %d: want 1 or more", top)
	}
	if byOrigin && domain != "" {
		return usagef("--by-origin counts the whole table's frontier: leave out --domain")
	}
	w, ranges, err := openDomain(ctx, db, domain)
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := readStats(ctx, w, ranges, domain, byOrigin, stderr)
	if err != nil {
		return err
	}
	out := newOutput(stdout, asJSON)
	if asJSON {
		err = out.json.Encode(jsonStats{Domain: domain, Stats: jsonshape.StatsOf(r.stats),
			HeldBack: heldBackPages(r.holds), Origins: r.origins, Due: r.due, Shards: r.shards})
		if err != nil {
			return err
		}
		return out.flush()
	}
	printStats(out.w, domain, r, byOrigin, top)
	return out.flush()
}

// statsReport is what query stats reads: the counts, and for the whole
// table the held-back origins, the due pages and the shards; the queued
// pages by origin with --by-origin.
type statsReport struct {
	stats   webtable.Stats
	holds   []webtable.OriginHold
	due     *jsonDue
	shards  []jsonShard
	origins []jsonOrigin
}

// readStats reads the statsReport of ranges (the whole table when domain
// is ""); a held-back origin that cannot be read is skipped with a
// warning on stderr.
func readStats(ctx context.Context, w *webtable.WebTable, ranges []urlkey.Range, domain string, byOrigin bool, stderr io.Writer) (statsReport, error) {
	var r statsReport
	var err error
	if r.stats, err = w.Stats(ctx, ranges); err != nil {
		return r, err
	}
	if domain == "" {
		if r.holds, err = w.OriginHolds(ctx, func(b webtable.BadEntry) {
			fmt.Fprintf(stderr, "query: skipping a held-back origin that cannot be read: %v\n", b)
		}); err != nil {
			return r, err
		}
	}
	if domain == "" {
		if r.due, err = dueStats(ctx, w, r.stats, time.Now()); err != nil {
			return r, err
		}
	}
	if domain == "" {
		if r.shards, err = shardStats(ctx, w, time.Now()); err != nil { // stats_shards.go
			return r, err
		}
	}
	if byOrigin {
		if r.origins, err = queuedOrigins(ctx, w, r.holds); err != nil {
			return r, err
		}
	}
	return r, nil
}

// printStats writes r as text: the scope (the whole table, or domain),
// the counts, what the whole table adds, the bytes and cells of each
// family, and with byOrigin the top origins by queued pages.
func printStats(w io.Writer, domain string, r statsReport, byOrigin bool, top int) {
	s := r.stats
	scope := "whole table"
	if domain != "" {
		scope = "domain " + domain
	}
	fmt.Fprintf(w, "%s\n", scope)
	fmt.Fprintf(w, "  %-10s %d\n  %-10s %d\n  %-10s %d\n  %-10s %d\n  %-10s %d\n",
		"rows", s.Rows, "fetched", s.Fetched, "failed", s.Failed, "queued", s.Queued, "versions", s.Versions)
	if domain == "" {
		// The frontier's entries are rows of their own (see
		// webtable.FrontierPrefix), not pages: counted apart.
		fmt.Fprintf(w, "  %-10s %s\n", "frontier", frontierLine(s))
	}
	if n := heldBackPages(r.holds); n > 0 {
		fmt.Fprintf(w, "  %-10s %d pages of %d origins left queued on purpose by the last crawl (see --by-origin)\n", "held back", n, len(r.holds))
	}
	if r.due != nil {
		printDue(w, s, r.due) // stats_due.go
	}
	printShards(w, r.shards)
	fmt.Fprintf(w, "  %-10s %10s %10s\n", "family", "bytes", "cells")
	for _, f := range webtable.Families {
		fmt.Fprintf(w, "  %-10s %10s %10d\n", f, jsonshape.Size(s.Bytes[f]), s.Cells[f])
	}
	if byOrigin {
		printOrigins(w, r.origins, top)
	}
}

// queuedOrigins counts the queued pages by origin, with the reason the
// last crawl recorded for each origin it held back.
func queuedOrigins(ctx context.Context, w *webtable.WebTable, holds []webtable.OriginHold) ([]jsonOrigin, error) {
	counts, err := w.QueuedByOrigin(ctx)
	if err != nil {
		return nil, err
	}
	why := make(map[string]webtable.OriginHold, len(holds))
	for _, h := range holds {
		why[h.Origin] = h
	}
	out := make([]jsonOrigin, len(counts))
	for i, c := range counts {
		o := jsonOrigin{Origin: c.Origin, Queued: c.Queued}
		if h, ok := why[c.Origin]; ok {
			o.Reason, o.Detail = h.Reason, h.Detail
			if !h.Until.IsZero() {
				o.Until = h.Until.UTC().Format(timeJSON)
			}
		}
		out[i] = o
	}
	return out, nil
}

// printOrigins writes the top origins by queued pages.
func printOrigins(w io.Writer, origins []jsonOrigin, top int) {
	if len(origins) == 0 {
		fmt.Fprintf(w, "queued by origin: none\n")
		return
	}
	fmt.Fprintf(w, "queued by origin (%d origins, the first %d)\n", len(origins), min(top, len(origins)))
	width := 0
	for _, o := range origins[:min(top, len(origins))] {
		width = max(width, len(o.Origin))
	}
	for _, o := range origins[:min(top, len(origins))] {
		why := "not reached by the last crawl: run it again"
		if o.Reason != "" {
			why = o.Reason
			if o.Detail != "" {
				why += ": " + o.Detail
			}
			if o.Until != "" {
				why += "; tried again after " + o.Until
			} else {
				why += "; run the crawl again to try them"
			}
		}
		fmt.Fprintf(w, "  %-*s %8d  %s\n", width, printable(o.Origin), o.Queued, printable(why))
	}
}

// heldBackPages sums the pages of the recorded held-back origins.
func heldBackPages(holds []webtable.OriginHold) int64 {
	var n int64
	for _, h := range holds {
		n += h.Entries
	}
	return n
}

func runErrors(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, domain string
	var limit int
	var asJSON bool
	fs := newFlagSet("errors", &db)
	fs.StringVar(&domain, "domain", "", "")
	fs.IntVar(&limit, "limit", 0, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := parseNoArgs(fs, args, "errors", "--domain"); err != nil {
		return err
	}
	if limit < 0 {
		return usagef("--limit %d: want 0 (no limit) or more", limit)
	}
	w, ranges, err := openDomain(ctx, db, domain)
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
