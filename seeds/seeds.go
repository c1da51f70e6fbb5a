package seeds

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/webtable/webtable/urlkey"
)

// ErrNoSeeds is returned (wrapped) by [Load] and [Parse] when a seed list
// holds no usable seed: the file is empty, holds only comments, or every
// line is bad.
var ErrNoSeeds = errors.New("seeds: no seeds")

// maxLine is the longest line read; longer lines are reported as bad.
const maxLine = 64 << 10

// Seed is one URL of a seed list.
type Seed struct {
	// URL is the canonical URL (scheme kept), as [urlkey.Canonical] writes it.
	URL string
	// Line is the 1-based line number the seed came from.
	Line int
}

// LineError reports a bad line of a seed list, in the form file:line: message
// (the message names the offending text).
type LineError struct {
	Name string // file name as given to Parse, "" if unknown
	Line int    // 1-based line number
	Text string // the offending text, trimmed
	Err  error  // the underlying error
}

func (e *LineError) Error() string {
	name := e.Name
	if name == "" {
		name = "seeds"
	}
	return fmt.Sprintf("%s:%d: %v", name, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }

// Parse reads a seed list from r. name is used in error messages (usually
// the file name). It returns the good seeds in file order, without duplicates,
// and one *LineError per bad line. The returned error is non-nil only when
// r cannot be read (the seeds before the failure are returned) or when the
// list holds no seed at all (wrapping [ErrNoSeeds]); bad lines alone are not
// an error as long as one seed is good.
func Parse(r io.Reader, name string) (seeds []Seed, bad []*LineError, err error) {
	br := bufio.NewReader(r)
	seen := make(map[string]bool)
	for line := 1; ; line++ {
		text, tooLong, rerr := readLine(br)
		if rerr != nil && rerr != io.EOF {
			return seeds, bad, fmt.Errorf("seeds: reading %s: %w", displayName(name), rerr)
		}
		if tooLong {
			bad = append(bad, &LineError{Name: name, Line: line, Text: clip(text), Err: fmt.Errorf("seeds: line longer than %d bytes", maxLine)})
		} else if s := stripComment(text); s != "" {
			if seed, lerr := parseLine(s); lerr != nil {
				bad = append(bad, &LineError{Name: name, Line: line, Text: clip(s), Err: lerr})
			} else if !seen[seed] {
				seen[seed] = true
				seeds = append(seeds, Seed{URL: seed, Line: line})
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	if len(seeds) == 0 {
		return nil, bad, fmt.Errorf("%w in %s", ErrNoSeeds, displayName(name))
	}
	return seeds, bad, nil
}

// Load reads the seed list in the file at path; see [Parse].
func Load(path string) ([]Seed, []*LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("seeds: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

//go:embed default.txt
var defaultList string

// Default returns the shipped list of well-known sites (seeds/default.txt).
func Default() []Seed {
	s, _, err := Parse(strings.NewReader(defaultList), "default.txt")
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return s
}

// URLs returns the URLs of seeds, in order.
func URLs(seeds []Seed) []string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = s.URL
	}
	return out
}

// parseLine checks one seed (comment already stripped) and returns its canonical URL.
func parseLine(s string) (string, error) {
	if strings.ContainsAny(s, " \t") {
		return "", fmt.Errorf("seeds: more than one word on the line: %q", clip(s))
	}
	u, err := urlkey.Canonical(s)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// readLine reads one line without its terminator ("\n" or "\r\n").
// tooLong reports a line over maxLine bytes (the rest of it is skipped).
func readLine(br *bufio.Reader) (text string, tooLong bool, err error) {
	var sb strings.Builder
	for {
		chunk, isPrefix, rerr := br.ReadLine()
		if sb.Len() <= maxLine {
			sb.Write(chunk)
		}
		if rerr != nil {
			if sb.Len() > 0 && rerr == io.EOF {
				return sb.String(), sb.Len() > maxLine, nil
			}
			return sb.String(), sb.Len() > maxLine, rerr
		}
		if !isPrefix {
			return sb.String(), sb.Len() > maxLine, nil
		}
	}
}

// stripComment removes a comment and surrounding blanks: a line starting
// with '#', or a '#' preceded by a blank.
func stripComment(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if strings.HasPrefix(s, "#") {
		return ""
	}
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func displayName(name string) string {
	if name == "" {
		return "seed list"
	}
	return name
}
