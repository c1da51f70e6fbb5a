package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The protocol's limits of one sitemap file.
const (
	// MaxURLs is the most entries (<url> or <sitemap>) one file may list.
	MaxURLs = 50_000
	// MaxBytes is the largest a file may be, uncompressed: 50 MB.
	MaxBytes = 50_000_000
)

// Errors that Parse wraps.
var (
	// ErrNotSitemap: the file is not XML, or its root element is neither
	// <urlset> nor <sitemapindex>.
	ErrNotSitemap = errors.New("sitemap: not a sitemap")
	// ErrTruncated: the file ends inside an element. The entries read
	// before the cut are returned.
	ErrTruncated = errors.New("sitemap: truncated")
)

// Kind is what a sitemap file lists.
type Kind int

// The kinds of sitemap files.
const (
	URLSet Kind = iota + 1 // <urlset>: pages
	Index                  // <sitemapindex>: other sitemap files
)

// String returns "urlset", "sitemapindex" or "".
func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	}
	return ""
}

// URL is one entry of a sitemap file: a page of a <urlset>, or a sitemap
// file of a <sitemapindex> (which has no changefreq or priority).
type URL struct {
	// Loc is the URL as written, spaces around it trimmed.
	Loc string
	// LastMod is when the page last changed, the zero time when absent or
	// unreadable (a W3C datetime: 2026-12-04, 2026-12-04T10:30:00Z, ...).
	LastMod time.Time
	// ChangeFreq is one of always, hourly, daily, weekly, monthly, yearly,
	// never, lowercased; "" when absent or anything else.
	ChangeFreq string
	// Priority is between 0 and 1; -1 when absent or unreadable (the
	// protocol's default is 0.5).
	Priority float64
}

// File is what Parse read of one sitemap file.
type File struct {
	Kind Kind
	// URLs are the entries, at most the limit, in file order.
	URLs []URL
	// Skipped counts entries beyond the URL limit, not returned.
	Skipped int
	// Bad counts entries without a <loc>.
	Bad int
	// Cut is true when the file was longer than the byte limit: it was
	// read up to there.
	Cut bool
}

// Limits bounds what Parse reads; zero fields take the protocol's
// limits, MaxURLs and MaxBytes.
type Limits struct {
	URLs  int
	Bytes int64
}

func (l Limits) orDefault() Limits {
	if l.URLs <= 0 {
		l.URLs = MaxURLs
	}
	if l.Bytes <= 0 {
		l.Bytes = MaxBytes
	}
	return l
}

// Parse reads one sitemap file from r, gzip-compressed or not, within
// lim. An error wrapping ErrNotSitemap or ErrTruncated comes with the
// entries read before it (none for ErrNotSitemap); a read error of r
// is returned as it is, wrapped.
func Parse(r io.Reader, lim Limits) (*File, error) {
	lim = lim.orDefault()
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &File{}, fmt.Errorf("%w: bad gzip header: %v", ErrNotSitemap, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	lr := &limitReader{r: br, left: lim.Bytes}
	in := bufio.NewReader(lr)
	p := &parser{d: xml.NewDecoder(in), in: in, lim: lim, f: &File{}}
	err := p.run()
	p.f.Cut = lr.cut
	if lr.err != nil {
		return p.f, fmt.Errorf("sitemap: reading: %w", lr.err)
	}
	return p.f, err
}

// limitReader reads at most left bytes of r and notes whether r had more.
type limitReader struct {
	r    io.Reader
	left int64
	cut  bool
	err  error // a read error of r other than EOF
}

func (l *limitReader) Read(b []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.cut = true
		}
		return 0, io.EOF
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// parser walks the tokens of one file.
type parser struct {
	d   *xml.Decoder
	in  *bufio.Reader // what d reads (a ByteReader: d reads no further than it needs)
	lim Limits
	f   *File
}

// run reads the root element and its entries.
func (p *parser) run() error {
	root, err := p.root()
	if err != nil {
		return err
	}
	p.f.Kind = root
	entry := "url"
	if root == Index {
		entry = "sitemap"
	}
	for {
		tok, err := p.d.Token()
		if err != nil {
			return p.eof(err, "in <"+root.String()+">")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != entry {
				if err := p.d.Skip(); err != nil {
					return p.eof(err, "in <"+t.Name.Local+">")
				}
				continue
			}
			if len(p.f.URLs) >= p.lim.URLs {
				p.f.Skipped++
				if err := p.d.Skip(); err != nil {
					return p.eof(err, "in <"+entry+">")
				}
				p.f.Skipped += countLocs(p.in)
				return nil
			}
			u, err := p.entry()
			if err != nil {
				return err
			}
			if u.Loc == "" {
				p.f.Bad++
				continue
			}
			p.f.URLs = append(p.f.URLs, u)
		case xml.EndElement:
			return nil // the root's end
		}
	}
}

// root reads up to the root element and says which kind it is.
func (p *parser) root() (Kind, error) {
	for {
		tok, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return 0, fmt.Errorf("%w: no root element", ErrNotSitemap)
			}
			return 0, fmt.Errorf("%w: %v", ErrNotSitemap, err)
		}
		if t, ok := tok.(xml.StartElement); ok {
			switch t.Name.Local {
			case "urlset":
				return URLSet, nil
			case "sitemapindex":
				return Index, nil
			}
			return 0, fmt.Errorf("%w: root element <%s>", ErrNotSitemap, t.Name.Local)
		}
	}
}

// entry reads the children of a <url> or <sitemap> just opened.
func (p *parser) entry() (URL, error) {
	u := URL{Priority: -1}
	for {
		tok, err := p.d.Token()
		if err != nil {
			return u, p.eof(err, "in an entry")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			text, err := p.text()
			if err != nil {
				return u, err
			}
			switch t.Name.Local {
			case "loc":
				u.Loc = text
			case "lastmod":
				u.LastMod = ParseTime(text)
			case "changefreq":
				u.ChangeFreq = changeFreq(text)
			case "priority":
				if f, err := strconv.ParseFloat(text, 64); err == nil && f >= 0 && f <= 1 {
					u.Priority = f
				}
			}
		case xml.EndElement:
			return u, nil
		}
	}
}

// text reads the character data of an element just opened, up to its
// end, trimmed; nested elements are skipped.
func (p *parser) text() (string, error) {
	var b strings.Builder
	for {
		tok, err := p.d.Token()
		if err != nil {
			return "", p.eof(err, "in an element")
		}
		switch t := tok.(type) {
		case xml.CharData:
			if b.Len() < 8192 {
				b.Write(t)
			}
		case xml.StartElement:
			if err := p.d.Skip(); err != nil {
				return "", p.eof(err, "in <"+t.Name.Local+">")
			}
		case xml.EndElement:
			return strings.TrimSpace(b.String()), nil
		}
	}
}

// eof turns a token error into ErrTruncated (the file ended early) or
// ErrNotSitemap (it is not XML there).
func (p *parser) eof(err error, where string) error {
	var se *xml.SyntaxError
	if err == io.EOF || (errors.As(err, &se) && strings.Contains(se.Msg, "unexpected EOF")) {
		return fmt.Errorf("%w: the file ends %s", ErrTruncated, where)
	}
	return fmt.Errorf("%w: %v", ErrNotSitemap, err)
}

// countLocs counts the "<loc" openings left in r: the entries past the
// limit, counted without parsing them.
func countLocs(r io.Reader) int {
	pat := []byte("<loc")
	buf := make([]byte, 64<<10)
	keep := 0 // bytes carried over from the last read
	n := 0
	for {
		m, err := r.Read(buf[keep:])
		data := buf[:keep+m]
		n += bytes.Count(data, pat)
		keep = min(len(pat)-1, len(data))
		// NB: the last bytes may begin a match the next read ends; they
		// cannot hold a whole one, so they are not counted twice.
		copy(buf, data[len(data)-keep:])
		if err != nil {
			return n
		}
	}
}

// changeFreq returns s lowercased when it is one of the protocol's
// values, else "".
func changeFreq(s string) string {
	s = strings.ToLower(s)
	switch s {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return s
	}
	return ""
}

// timeForms are the W3C datetime forms a lastmod may take.
var timeForms = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01",
	"2006",
	"2006-01-02T15:04:05", // no zone: common, read as UTC
}

// ParseTime reads a W3C datetime (2026-12-04, 2026-12-04T10:30+01:00,
// 2026-12-04T10:30:00.5Z ...), as a lastmod holds it; the zero time when
// it is none.
func ParseTime(s string) time.Time {
	for _, f := range timeForms {
		if t, err := time.Parse(f, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
