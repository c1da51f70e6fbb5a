package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/webtable"
)

// Human output fits a terminal 100 columns wide.
const (
	lineWidth   = 100
	columnWidth = 28
	timeWidth   = 24
	valueWidth  = lineWidth - 2 - columnWidth - 1 - timeWidth - 1
	fieldWidth  = 14
)

// output writes records either for people (aligned text) or as JSON Lines.
type output struct {
	w    *bufio.Writer
	json *json.Encoder
	err  error // the first write error of a streamed result (see ok)
}

func newOutput(w io.Writer, asJSON bool) *output {
	o := &output{w: bufio.NewWriter(w)}
	if asJSON {
		o.json = json.NewEncoder(o.w)
		o.json.SetEscapeHTML(false)
	}
	return o
}

func (o *output) flush() error { return o.w.Flush() }

// ok keeps the first write error and reports whether there was none, for
// the callbacks of streamed results: return out.ok(out.row(...)).
func (o *output) ok(err error) bool {
	if o.err == nil {
		o.err = err
	}
	return o.err == nil
}

// close flushes the output and returns the first error: err (the
// reader's), then a write error kept by ok, then the flush's.
func (o *output) close(err error) error {
	if err == nil {
		err = o.err
	}
	if ferr := o.flush(); err == nil {
		err = ferr
	}
	return err
}

// row writes one row: its key and its cells.
func (o *output) row(r webtable.Row, keysOnly bool) error {
	if o.json != nil {
		return o.json.Encode(jsonshape.RowOf(r, keysOnly))
	}
	if keysOnly {
		_, err := fmt.Fprintln(o.w, printable(r.Key))
		return err
	}
	fmt.Fprintln(o.w, printable(r.Key))
	// NB: the derived families (cmd/index) come after the crawl's, under
	// a heading of their own.
	derived := false
	for _, pass := range []bool{false, true} {
		for _, c := range r.Cells {
			if webtable.IsDerived(c.Family) != pass {
				continue
			}
			if pass && !derived {
				derived = true
				fmt.Fprintln(o.w, "  derived (index):")
			}
			if err := o.cell(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// cell writes one cell of a row in the text form.
func (o *output) cell(c webtable.Cell) error {
	col := printable(c.Column())
	if len(col) > columnWidth {
		// A long column name (a referrer URL) gets its own line.
		fmt.Fprintf(o.w, "  %s\n  %-*s", col, columnWidth, "")
	} else {
		fmt.Fprintf(o.w, "  %-*s", columnWidth, col)
	}
	if c.Column() == webtable.FetchRecordColumn {
		if fields, ok := webtable.RecordFields(c.Value); ok {
			fmt.Fprintf(o.w, " %s\n", formatTime(c.Timestamp))
			for _, f := range fields {
				fmt.Fprintf(o.w, "    %-*s %s\n", fieldWidth, printable(f.Name), describe([]byte(f.Value), lineWidth-4-fieldWidth-1))
			}
			return nil
		}
	}
	if _, err := fmt.Fprintf(o.w, " %-*s %s\n", timeWidth, formatTime(c.Timestamp), describe(c.Value, valueWidth)); err != nil {
		return err
	}
	return nil
}

// describe shows a value in at most width characters: short printable text
// as it is; a longer single line cut with its size; multi-line text (HTML)
// or binary as its size, hash and first line, never dumped whole.
func describe(v []byte, width int) string {
	text := utf8.Valid(v) && isPrintable(string(v))
	if text && len(v) <= width {
		return string(v)
	}
	if text && !strings.ContainsAny(string(v), "\r\n") {
		tail := fmt.Sprintf("… (%s)", jsonshape.Size(int64(len(v))))
		return cut(string(v), width-utf8.RuneCountInString(tail)) + tail
	}
	sum := sha256.Sum256(v)
	head := fmt.Sprintf("%s, sha256 %s", jsonshape.Size(int64(len(v))), hex.EncodeToString(sum[:4]))
	if !utf8.Valid(v) {
		return head + ", binary"
	}
	first := printable(strings.TrimSpace(firstLine(string(v))))
	room := width - len(head) - 2
	if first == "" || room < 8 {
		return head
	}
	if utf8.RuneCountInString(first) > room {
		first = cut(first, room-1) + "…"
	}
	return head + ": " + first
}

// cut keeps the first n runes of s.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n, 0)])
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			return line
		}
	}
	return ""
}

// isPrintable reports whether s has only printable characters, newlines
// and tabs.
func isPrintable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}

// printable escapes what a terminal would not show (control bytes, invalid
// UTF-8) in a key or column name, Go-style.
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	q := fmt.Sprintf("%+q", s)
	return q[1 : len(q)-1]
}
