package main

import (
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/webtable"
)

// TestParseAtEdges checks --at at the edges of what a timestamp holds:
// refused with a clear error outside them, read exactly inside.
func TestParseAtEdges(t *testing.T) {
	tests := []struct {
		in   string
		want webtable.Timestamp // 0: refused
		err  string
	}{
		{"1", 1, ""},
		{"1700000000000000", 1700000000000000, ""},
		{"9223372036854775807", 0, "later than any timestamp holds"},
		{"9223372036854775808", 0, "later than any timestamp holds"},
		{"9223372036854774001", 0, "later than any timestamp holds"},
		{"9223372036854774000", webtable.MaxTimestamp, ""},
		{"9223372036854773999", 9223372036854773999, ""},
		{"0", 0, "must be positive"},
		{"-9223372036854775809", 0, "must be positive"},
		{"1970-01-01T00:00:00.000001Z", 1, ""},
		{"1970-01-01T00:00:00Z", 0, "before the first time"},
		{"1969-12-31T23:59:59.999999Z", 0, "before the first time"},
		{"1969-12-31", 0, "before the first time"},
		{"0001-01-01T00:00:00Z", 0, "before the first time"},
		{"9999-12-31T23:59:59.999Z", webtable.TimestampOf(time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)), ""},
		{"1970-01-01", webtable.TimestampOf(time.Date(1970, 1, 1, 23, 59, 59, 999999e3, time.UTC)), ""},
	}
	for _, tc := range tests {
		got, err := parseAt(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseAt(%q) = %d, %v, want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseAt(%q) = %d, %v, want %d", tc.in, got, err, tc.want)
		}
	}
}
