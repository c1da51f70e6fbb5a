package bigtable

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"testing"
)

// orderedCells lists cell keys in the order their encodings must sort.
var orderedCells = []cellKey{
	{1, "\x00", "a", "", 5},
	{1, "\x00", "a", "", 4},
	{1, "\x00\x00", "a", "", 0},
	{1, "\x00\x01", "a", "", 0},
	{1, "\x00\xff", "a", "", 0},
	{1, "\x01", "a", "", 0},
	{1, "a", "a", "", 1<<63 - 1},
	{1, "a", "a", "", 1000},
	{1, "a", "a", "", 0},
	{1, "a", "a", "\x00", 9},
	{1, "a", "a", "\x00\x00", 9},
	{1, "a", "a", "\x00\x01", 9},
	{1, "a", "a", "\x01", 9},
	{1, "a", "a", "x", 9},
	{1, "a", "a", "x\x00", 9},
	{1, "a", "a", "xy", 9},
	{1, "a", "a", "\xff", 9},
	{1, "a", "a-", "", 9},
	{1, "a", "a.b", "", 9},
	{1, "a", "b", "", 9},
	{1, "a", "b", "q", 9},
	{1, "a\x00", "a", "", 9},
	{1, "a\x00\x00", "a", "", 9},
	{1, "a\x00b", "a", "", 9},
	{1, "a\x01", "a", "", 9},
	{1, "ab", "a", "", 9},
	{1, "com.cnn.www", "anchor", "cnnsi.com", 9},
	{1, "com.cnn.www", "anchor", "my.look.ca", 8},
	{1, "com.cnn.www", "contents", "", 6},
	{1, "com.cnn.www", "contents", "", 5},
	{1, "com.cnn.www", "contents", "", 3},
	{1, "com.cnn.www/", "contents", "", 3},
	{1, "\xff", "a", "", 9},
	{1, "\xff\xff", "a", "", 9},
	{2, "\x00", "a", "", 9},
}

func TestCellKeyOrder(t *testing.T) {
	var prev []byte
	for i, k := range orderedCells {
		enc := appendCellKey(nil, k.table, k.row, k.family, k.qualifier, k.ts)
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("encoding of %+v = %x, not above that of %+v = %x", k, enc, orderedCells[i-1], prev)
		}
		rest, got, err := decodeCellKey(enc)
		if err != nil {
			t.Errorf("decodeCellKey(%x) = %v", enc, err)
			continue
		}
		if got != k {
			t.Errorf("decodeCellKey(%x) = %+v, want %+v", enc, got, k)
		}
		if len(rest) != 0 {
			t.Errorf("decodeCellKey(%x) left %x", enc, rest)
		}
		prev = enc
	}
}

// TestKeyWorkedExample checks the example in keys.go.
func TestKeyWorkedExample(t *testing.T) {
	got := fmt.Sprintf("% x", appendCellKey(nil, 7, "com.cnn.www", "anchor", "cnnsi.com", 9))
	want := "01 00 00 00 07 " +
		"63 6f 6d 2e 63 6e 6e 2e 77 77 77 00 01 " +
		"61 6e 63 68 6f 72 00 01 " +
		"63 6e 6e 73 69 2e 63 6f 6d 00 01 " +
		"ff ff ff ff ff ff ff f6"
	if got != want {
		t.Errorf("appendCellKey = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("% x", appendEscaped(nil, "a\x00b")), "61 00 ff 62 00 01"; got != want {
		t.Errorf("appendEscaped(a\\x00b) = %s, want %s", got, want)
	}
}

func TestDecodeEscapedErrors(t *testing.T) {
	for _, in := range []string{"", "abc", "a\x00", "a\x00\x02", "a\x00\xfe\x00\x01"} {
		if _, _, err := decodeEscaped([]byte(in)); err == nil {
			t.Errorf("decodeEscaped(%q) succeeded, want error", in)
		}
	}
	for _, in := range []string{"\x01", "\x01\x00\x00\x00\x01a\x00\x01", "\x01\x00\x00\x00\x01a\x00\x01f\x00\x01q\x00\x01\x00"} {
		if _, _, err := decodeCellKey([]byte(in)); err == nil {
			t.Errorf("decodeCellKey(%q) succeeded, want error", in)
		}
	}
}

// TestRowPrefixScan checks that the escaped prefix of a row prefix selects
// exactly the rows with that prefix.
func TestRowPrefixScan(t *testing.T) {
	rows := []string{"a", "a\x00", "a\x00b", "ab", "b", "\x00", "a\xff", "\xff"}
	for _, p := range []string{"a", "a\x00", "\x00", "\xff", "ab"} {
		pfx := appendEscapedPrefix(appendTablePrefix(nil, 3), p)
		for _, r := range rows {
			enc := appendCellKey(nil, 3, r, "f", "q", 1)
			if got, want := bytes.HasPrefix(enc, pfx), strings.HasPrefix(r, p); got != want {
				t.Errorf("row %q under prefix %q: encoded HasPrefix = %v, want %v", r, p, got, want)
			}
		}
	}
}

func compareCellKeys(a, b cellKey) int {
	return cmp.Or(
		cmp.Compare(a.table, b.table),
		strings.Compare(a.row, b.row),
		strings.Compare(a.family, b.family),
		strings.Compare(a.qualifier, b.qualifier),
		-cmp.Compare(a.ts, b.ts),
	)
}

// FuzzKeyOrder checks that byte order of encodings equals tuple order and
// that encodings round-trip.
func FuzzKeyOrder(f *testing.F) {
	f.Add("a", "f", "q", int64(1), "a\x00", "f", "q", int64(1))
	f.Add("a", "f", "", int64(5), "a", "f", "\x00", int64(5))
	f.Add("ab", "f", "q", int64(0), "a", "fg", "q", int64(9))
	f.Add("\xff", "f", "q\x00\x01", int64(1), "\xff\x00", "f", "q", int64(2))
	f.Fuzz(func(t *testing.T, r1, f1, q1 string, ts1 int64, r2, f2, q2 string, ts2 int64) {
		if ts1 < 0 || ts2 < 0 || r1 == "" || r2 == "" {
			return
		}
		fam := func(s string) string { return strings.ReplaceAll(s, "\x00", "_") }
		a := cellKey{1, r1, fam(f1), q1, Timestamp(ts1)}
		b := cellKey{1, r2, fam(f2), q2, Timestamp(ts2)}
		ea := appendCellKey(nil, a.table, a.row, a.family, a.qualifier, a.ts)
		eb := appendCellKey(nil, b.table, b.row, b.family, b.qualifier, b.ts)
		if got, want := bytes.Compare(ea, eb), compareCellKeys(a, b); got != want {
			t.Fatalf("Compare(enc(%+v), enc(%+v)) = %d, tuple order %d", a, b, got, want)
		}
		for _, k := range []cellKey{a, b} {
			enc := appendCellKey(nil, k.table, k.row, k.family, k.qualifier, k.ts)
			rest, got, err := decodeCellKey(enc)
			if err != nil || got != k || len(rest) != 0 {
				t.Fatalf("decodeCellKey(enc(%+v)) = %x, %+v, %v", k, rest, got, err)
			}
		}
	})
}

// FuzzDecodeCellKey feeds arbitrary bytes to the decoder: it must not panic,
// and whatever it accepts must re-encode to the same bytes (the encoding is
// canonical, so two keys never name one cell).
func FuzzDecodeCellKey(f *testing.F) {
	f.Add(appendCellKey(nil, 7, "com.cnn.www", "anchor", "cnnsi.com", 9))
	f.Add(appendCellKey(nil, 1, "a\x00b", "f", "\x00\x00", 0))
	f.Add([]byte("\x01\x00\x00\x00\x01a\x00\xfe\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rest, k, err := decodeCellKey(b)
		if err != nil {
			return
		}
		enc := appendCellKey(nil, k.table, k.row, k.family, k.qualifier, k.ts)
		if got := append(enc, rest...); !bytes.Equal(got, b) {
			t.Fatalf("decodeCellKey(%x) = %+v, %x; re-encodes to %x", b, k, rest, got)
		}
	})
}
