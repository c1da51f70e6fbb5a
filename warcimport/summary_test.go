package warcimport

import "testing"

// TestStatsString: the summary names every count, the resolved revisits
// and the skipped records only when there are some, skipped ones sorted by
// why.
func TestStatsString(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   Stats
		want string
	}{
		{"plain", Stats{Captures: 3, Versions: 2, Unchanged: 1, Revisits: 1},
			"read 3 captures: 2 new versions, 1 unchanged, 0 without a body to keep, 0 failed (HTTP status 400 or more); 1 revisits add no version"},
		{"resolved and skipped", Stats{Captures: 4, Versions: 4, Revisits: 3, Resolved: 2, Skipped: map[string]int{"request": 5, "metadata": 1}},
			"read 4 captures: 4 new versions, 0 unchanged, 0 without a body to keep, 0 failed (HTTP status 400 or more); 1 revisits add no version; 2 revisits read as versions of their rows (identical-payload-digest); skipped: 1 metadata, 5 request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.st.String(); got != tc.want {
				t.Errorf("Stats.String() =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
