package stores

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResetDemo: the demo recreates only its own default directory; any
// other directory must be new or empty, so a real store is never removed.
func TestResetDemo(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "webtable-demo.db")
	other := filepath.Join(dir, "mine.db")
	for _, d := range []string{def, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "MANIFEST"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if err := ResetDemo(ctx, def, def); err != nil {
		t.Fatalf("ResetDemo(the default demo store) = %v, want it removed", err)
	}
	if _, err := os.Stat(def); !os.IsNotExist(err) {
		t.Errorf("the old demo store %s is still there (%v)", def, err)
	}
	err := ResetDemo(ctx, other, def)
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("ResetDemo(a store of real crawls) = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(other, "MANIFEST")); err != nil {
		t.Errorf("ResetDemo touched %s: %v", other, err)
	}
	if err := ResetDemo(ctx, filepath.Join(dir, "new.db"), def); err != nil {
		t.Errorf("ResetDemo(a new directory) = %v, want nil", err)
	}
}
