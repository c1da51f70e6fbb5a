package termbar

import (
	"bytes"
	"os"
	"testing"
)

// TestNotATerminal: a buffer, a pipe or a regular file is no terminal, so
// the programs write plain lines there and never a bar's escape codes.
func TestNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]interface{ Write([]byte) (int, error) }{"buffer": &buf, "file": f, "pipe": w} {
		if IsTerminal(out) {
			t.Errorf("IsTerminal(%s) = true, want false", name)
		}
		if b := NewSpinner(out, "x"); b != nil {
			t.Errorf("NewSpinner(%s) = a spinner, want nil", name)
		}
		if b := NewBar(out, 3); b != nil {
			t.Errorf("NewBar(%s) = a bar, want nil", name)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q to a buffer, want nothing", buf.String())
	}
}

// TestTerminal: a character device is a terminal.
func TestTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !IsTerminal(f) {
		t.Fatalf("IsTerminal(%s) = false, want true (a character device)", os.DevNull)
	}
	b := NewSpinner(f, "starting")
	if b == nil {
		t.Fatalf("NewSpinner(%s) = nil, want a spinner", os.DevNull)
	}
	b.Finish()
	if NewBar(f, 3) == nil {
		t.Fatalf("NewBar(%s) = nil, want a bar", os.DevNull)
	}
}
