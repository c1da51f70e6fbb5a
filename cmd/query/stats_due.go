package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/webtable/webtable/webtable"
)

// jsonDue is what query stats --json says of a continuous crawl's due
// pages and change rates (absent for other crawls).
type jsonDue struct {
	Entries int64 `json:"entries"`
	Now     int64 `json:"now"`
	Day     int64 `json:"within_a_day"`
	// Rates counts pages by estimated changes a day: "never", "unknown",
	// and one key per decade, "1e-2" for 0.01 to 0.1 changes a day.
	Rates map[string]int64 `json:"change_rates,omitempty"`
}

// dueStats reads what query stats shows of a continuous crawl, nil when
// the store holds none of it.
func dueStats(ctx context.Context, w *webtable.WebTable, s webtable.Stats, now time.Time) (*jsonDue, error) {
	c, err := w.DueCounts(ctx, now)
	if err != nil {
		return nil, err
	}
	if c.Entries == 0 && s.Rates.Pages() == 0 {
		return nil, nil
	}
	d := &jsonDue{Entries: c.Entries, Now: c.Now, Day: c.Day, Rates: map[string]int64{}}
	if s.Rates.Never > 0 {
		d.Rates["never"] = s.Rates.Never
	}
	if s.Rates.Unknown > 0 {
		d.Rates["unknown"] = s.Rates.Unknown
	}
	for dec, n := range s.Rates.Decades {
		d.Rates[fmt.Sprintf("1e%d", dec)] = n
	}
	return d, nil
}

// printDue writes the due pages and the histogram of change rates.
func printDue(w io.Writer, s webtable.Stats, d *jsonDue) {
	fmt.Fprintf(w, "  %-10s %d pages to fetch again: %d due now, %d within a day\n", "due", d.Entries, d.Now, d.Day)
	if s.Rates.Pages() == 0 {
		return
	}
	fmt.Fprintf(w, "  %-10s pages by estimated changes a day\n", "changes")
	decs := make([]int, 0, len(s.Rates.Decades))
	for dec := range s.Rates.Decades {
		decs = append(decs, dec)
	}
	slices.Sort(decs)
	most := max(s.Rates.Never, s.Rates.Unknown)
	for _, n := range s.Rates.Decades {
		most = max(most, n)
	}
	bar := func(label string, n int64) {
		width := int(math.Ceil(30 * float64(n) / float64(max(most, 1))))
		fmt.Fprintf(w, "    %-16s %8d %s\n", label, n, repeat('#', width))
	}
	if s.Rates.Unknown > 0 {
		bar("not known yet", s.Rates.Unknown)
	}
	if s.Rates.Never > 0 {
		bar("never", s.Rates.Never)
	}
	for _, dec := range decs {
		bar(fmt.Sprintf("%g to %g", math.Pow(10, float64(dec)), math.Pow(10, float64(dec+1))), s.Rates.Decades[dec])
	}
}

func repeat(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
