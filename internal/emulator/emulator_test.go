package emulator

import (
	"os"
	"testing"
)

func TestStartSetsTheEnvironment(t *testing.T) {
	addr := Start(t)
	if got := os.Getenv("BIGTABLE_EMULATOR_HOST"); got != addr || addr == "" {
		t.Errorf("BIGTABLE_EMULATOR_HOST = %q, want the emulator's address %q", got, addr)
	}
}

func TestIsRead(t *testing.T) {
	for method, want := range map[string]bool{
		"/google.bigtable.v2.Bigtable/ReadRows":                   true,
		"/google.bigtable.v2.Bigtable/SampleRowKeys":              true,
		"/google.bigtable.admin.v2.BigtableTableAdmin/ListTables": true,
		"/google.bigtable.v2.Bigtable/MutateRows":                 false,
		"/google.bigtable.v2.Bigtable/CheckAndMutateRow":          false,
		"/google.bigtable.v2.Bigtable/ReadModifyWriteRow":         false,
	} {
		if got := isRead(method); got != want {
			t.Errorf("isRead(%q) = %v, want %v", method, got, want)
		}
	}
}
