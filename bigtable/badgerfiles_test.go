package bigtable

import "testing"

// TestBadgerFile: Badger's file names parse to their kind and number;
// other names are no kind, and a kind's extension on a name that is no
// number keeps its kind with no number.
func TestBadgerFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kind, n int
	}{
		{"00001.mem", kindMemLog, 1},
		{"000042.vlog", kindValueLog, 42},
		{"000007.sst", kindTable, 7},
		{"MANIFEST", -1, -1},
		{"LOCK", -1, -1},
		{"KEYREGISTRY", -1, -1},
		{"notes.sst", kindTable, -1},
		{"-3.mem", kindMemLog, -1},
		{"12.sst.tmp", -1, -1},
	} {
		if kind, n := badgerFile(tc.name); kind != tc.kind || n != tc.n {
			t.Errorf("badgerFile(%q) = %d, %d, want %d, %d", tc.name, kind, n, tc.kind, tc.n)
		}
	}
}
