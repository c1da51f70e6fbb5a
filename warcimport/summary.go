package warcimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// String is the one-line summary of an import, as crawl --from-warc
// prints it: "read 3 captures: 2 new versions, 1 unchanged, ...".
func (st *Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d captures: %d new versions, %d unchanged, %d without a body to keep, %d failed (HTTP status 400 or more); %d revisits add no version",
		st.Captures, st.Versions, st.Unchanged, st.NoBody, st.Failed, st.Revisits-st.Resolved)
	if st.Resolved > 0 {
		fmt.Fprintf(&b, "; %d revisits read as versions of their rows (identical-payload-digest)", st.Resolved)
	}
	if len(st.Skipped) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(st.Skipped)) {
			parts = append(parts, fmt.Sprintf("%d %s", st.Skipped[k], k))
		}
		fmt.Fprintf(&b, "; skipped: %s", strings.Join(parts, ", "))
	}
	return b.String()
}
