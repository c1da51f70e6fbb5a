package flagvalue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{10 << 20, "10MiB"}, {3 << 10, "3KiB"}, {1000, "1000B"}, {(1 << 20) + 1024, "1025KiB"}} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestLoadCACert(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCACert(notPEM); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("LoadCACert(a text file) = %v, want an error naming the missing PEM certificate", err)
	}
	if _, err := LoadCACert(filepath.Join(dir, "absent.pem")); err == nil || !strings.Contains(err.Error(), "reading the CA certificates") {
		t.Errorf("LoadCACert(absent) = %v, want a read error", err)
	}
}
