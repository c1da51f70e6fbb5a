package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// DefaultTop is how many rows scan --sort rank lists without --limit.
const DefaultTop = 20

// scanTopRank lists the n rows of ranges with the highest rank:page,
// highest first (ties by key), holding n rows in memory whatever the range.
func scanTopRank(ctx context.Context, w *webtable.WebTable, ranges []urlkey.Range, n int, asJSON bool, stdout io.Writer) error {
	if n <= 0 {
		n = DefaultTop
	}
	top, err := w.TopRanked(ctx, ranges, n)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	for i, t := range top {
		if asJSON {
			if err := enc.Encode(map[string]any{"row": t.Key, "rank": t.Rank}); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%4d  %-22s %s\n", i+1, strconv.FormatFloat(t.Rank, 'f', -1, 64), printable(t.Key)); err != nil {
			return err
		}
	}
	return nil
}

// scanDups lists the clusters of duplicates whose members are in ranges:
// the representative (dup:of), then its members, one a line.
func scanDups(ctx context.Context, w *webtable.WebTable, ranges []urlkey.Range, limit int64, asJSON bool, stdout io.Writer) error {
	members := map[string][]string{}
	err := w.Scan(ctx, ranges, webtable.Query{Column: "dup:of"}, 0, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			members[string(c.Value)] = append(members[string(c.Value)], r.Key)
		}
		return true
	})
	if err != nil {
		return err
	}
	reps := make([]string, 0, len(members))
	for rep := range members {
		reps = append(reps, rep)
	}
	slices.Sort(reps)
	enc := json.NewEncoder(stdout)
	for i, rep := range reps {
		if limit > 0 && int64(i) >= limit {
			break
		}
		ms := members[rep]
		if asJSON {
			if err := enc.Encode(map[string]any{"representative": rep, "members": ms}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s (%d pages)\n", printable(rep), len(ms))
		for _, m := range ms {
			if m != rep {
				if _, err := fmt.Fprintf(stdout, "  %s\n", printable(m)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
