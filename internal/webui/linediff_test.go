package webui

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// apply rebuilds both sides from a diff, checking line numbers.
func apply(t *testing.T, ops []op) (a, b []string) {
	t.Helper()
	for _, o := range ops {
		switch o.Kind {
		case ' ':
			a, b = append(a, o.Text), append(b, o.Text)
			if o.A != len(a) || o.B != len(b) {
				t.Fatalf("op %+v: line numbers want %d,%d", o, len(a), len(b))
			}
		case '-':
			a = append(a, o.Text)
			if o.A != len(a) || o.B != 0 {
				t.Fatalf("op %+v: line numbers want %d,0", o, len(a))
			}
		case '+':
			b = append(b, o.Text)
			if o.B != len(b) || o.A != 0 {
				t.Fatalf("op %+v: line numbers want 0,%d", o, len(b))
			}
		}
	}
	return a, b
}

func TestDiffLines(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		changes int // lines removed plus lines added, for a shortest script
	}{
		{"equal", "a b c", "a b c", 0},
		{"empty to text", "", "a b", 2},
		{"text to empty", "a b", "", 2},
		{"one changed", "a b c", "a x c", 2},
		{"inserted", "a c", "a b c", 1},
		{"deleted", "a b c", "a c", 1},
		{"moved", "a b c d", "b c d a", 2},
		{"interleaved", "a b c d e f", "a x c y e z", 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := strings.Fields(tc.a), strings.Fields(tc.b)
			ops, exact := diffLines(a, b)
			ga, gb := apply(t, ops)
			if strings.Join(ga, " ") != tc.a || strings.Join(gb, " ") != tc.b || !exact {
				t.Fatalf("diffLines(%q, %q) rebuilds %q, %q (exact %v)", tc.a, tc.b, ga, gb, exact)
			}
			n := 0
			for _, o := range ops {
				if o.Kind != ' ' {
					n++
				}
			}
			if n != tc.changes {
				t.Errorf("diffLines(%q, %q) has %d changed lines, want %d", tc.a, tc.b, n, tc.changes)
			}
		})
	}
}

// TestDiffLinesRandom checks on random edits that the script rebuilds both
// sides and is no longer than the edits made.
func TestDiffLinesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		a := make([]string, r.IntN(40))
		for i := range a {
			a[i] = string(rune('a' + r.IntN(4)))
		}
		b := append([]string(nil), a...)
		edits := r.IntN(6)
		for range edits {
			i := r.IntN(len(b) + 1)
			if r.IntN(2) == 0 && i < len(b) {
				b = append(b[:i], b[i+1:]...)
			} else {
				b = append(b[:i], append([]string{"z"}, b[i:]...)...)
			}
		}
		ops, exact := diffLines(a, b)
		ga, gb := apply(t, ops)
		if strings.Join(ga, "") != strings.Join(a, "") || strings.Join(gb, "") != strings.Join(b, "") || !exact {
			t.Fatalf("diff of %q and %q rebuilds %q and %q", a, b, ga, gb)
		}
		n := 0
		for _, o := range ops {
			if o.Kind != ' ' {
				n++
			}
		}
		if n > edits {
			t.Fatalf("diff of %q and %q: %d changes for %d edits", a, b, n, edits)
		}
	}
}

func TestDiffLinesBounded(t *testing.T) {
	var a, b []string
	for i := range 3 * maxEdits {
		a = append(a, "a"+string(rune('0'+i%10)))
		b = append(b, "b"+string(rune('0'+i%10)))
	}
	ops, exact := diffLines(a, b)
	if exact {
		t.Errorf("a diff of %d edits was exact, want the bound %d to stop it", 2*len(a), maxEdits)
	}
	if ga, gb := apply(t, ops); len(ga) != len(a) || len(gb) != len(b) {
		t.Errorf("bounded diff rebuilds %d and %d lines, want %d and %d", len(ga), len(gb), len(a), len(b))
	}
}

func TestHunks(t *testing.T) {
	a := strings.Fields("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")
	b := append([]string(nil), a...)
	b[1], b[17] = "x", "y"
	ops, _ := diffLines(a, b)
	hs := hunks(ops, 3)
	if len(hs) != 2 {
		t.Fatalf("%d hunks, want 2 (changes 16 lines apart, context 3)", len(hs))
	}
	var got []string
	for _, o := range hs[0].Ops {
		got = append(got, string(o.Kind)+o.Text)
	}
	if want := " 1 -2 +x  3  4  5"; strings.Join(got, " ") != want {
		t.Errorf("first hunk %q, want %q", strings.Join(got, " "), want)
	}
	near := append([]string(nil), a...)
	near[1], near[6] = "x", "y"
	ops, _ = diffLines(a, near)
	if hs := hunks(ops, 3); len(hs) != 1 {
		t.Errorf("%d hunks for changes 5 lines apart, want 1", len(hs))
	}
}
