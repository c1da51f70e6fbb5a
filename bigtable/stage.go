package bigtable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"
)

// cell is one cell version flowing through a filter. Cells of a row reach a
// stage in key order: family, qualifier, newest first.
type cell struct {
	family, qualifier string
	column            string // family + ":" + qualifier, shared by the column's versions
	ts                Timestamp
	val               *lazyValue // nil after StripValueFilter
}

// lazyValue reads a value from Badger only when something asks for it.
//
// NB: item is valid only until the Badger iterator moves, so a streaming read
// must be done with a cell before it advances; whole-row reads load values
// eagerly.
type lazyValue struct {
	item   *badger.Item
	v      []byte
	loaded bool
	handed bool // v is in a ReadItem already: copy it for another
}

func (l *lazyValue) get() ([]byte, error) {
	if !l.loaded {
		v, err := l.item.ValueCopy(nil)
		if err != nil {
			return nil, fmt.Errorf("bigtable: reading value: %w", err)
		}
		if len(v) == 0 {
			v = nil
		}
		l.v, l.loaded, l.item = v, true, nil
	}
	return l.v, nil
}

func (c *cell) value() ([]byte, error) {
	if c.val == nil {
		return nil, nil
	}
	return c.val.get()
}

// A stage evaluates one compiled Filter over the cells of one row at a time.
// startRow announces a new row; apply appends to out the cells that pass
// among in (which it must not modify) and returns out. A streaming read
// calls apply once per cell; a whole-row read once with the whole row.
type stage interface {
	startRow(key string)
	apply(in, out []cell) ([]cell, error)
}

func compileFilter(f Filter) (stage, error) {
	if f == nil {
		return passStage{}, nil
	}
	return f.compile()
}

type passStage struct{}

func (passStage) startRow(string)                      {}
func (passStage) apply(in, out []cell) ([]cell, error) { return append(out, in...), nil }
func (passAllFilter) compile() (stage, error)          { return passStage{}, nil }

type blockStage struct{}

func (blockStage) startRow(string)                     {}
func (blockStage) apply(_, out []cell) ([]cell, error) { return out, nil }
func (blockAllFilter) compile() (stage, error)         { return blockStage{}, nil }

func compileAll(fs []Filter) ([]stage, error) {
	out := make([]stage, len(fs))
	for i, f := range fs {
		if f == nil {
			return nil, fmt.Errorf("%w: nil sub-filter", ErrInvalidFilter)
		}
		s, err := f.compile()
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

type chainStage struct {
	subs []stage
	bufs [2][]cell
}

func (f chainFilter) compile() (stage, error) {
	return compileList("Chain", f, func(subs []stage) stage { return &chainStage{subs: subs} })
}

// compileList compiles the sub-filters of a chain or an interleave (kind
// names it) and joins them by join. Fewer than two is an error, worded as
// Cloud Bigtable words it, so that code written here does not break there.
func compileList(kind string, f []Filter, join func([]stage) stage) (stage, error) {
	if len(f) < 2 {
		return nil, fmt.Errorf("%w: %s must contain at least two RowFilters, got %d (use the filter itself, or PassAllFilter or BlockAllFilter for none)", ErrInvalidFilter, kind, len(f))
	}
	subs, err := compileAll(f)
	if err != nil {
		return nil, err
	}
	return join(subs), nil
}

func (s *chainStage) startRow(key string) {
	for _, sub := range s.subs {
		sub.startRow(key)
	}
}

func (s *chainStage) apply(in, out []cell) ([]cell, error) {
	cur := in
	for i, sub := range s.subs {
		// NB: the stages after one that passed nothing still see the row
		// start; they just get no cells, as in Cloud Bigtable.
		buf, err := sub.apply(cur, s.bufs[i%2][:0])
		if err != nil {
			return out, err
		}
		s.bufs[i%2] = buf
		cur = buf
		if len(cur) == 0 {
			return out, nil
		}
	}
	return append(out, cur...), nil
}

type interleaveStage struct {
	subs []stage
	bufs [][]cell
}

func (f interleaveFilter) compile() (stage, error) {
	return compileList("Interleave", f, func(subs []stage) stage {
		return &interleaveStage{subs: subs, bufs: make([][]cell, len(subs))}
	})
}

func (s *interleaveStage) startRow(key string) {
	for _, sub := range s.subs {
		sub.startRow(key)
	}
}

func (s *interleaveStage) apply(in, out []cell) ([]cell, error) {
	start := len(out)
	for i, sub := range s.subs {
		buf, err := sub.apply(in, s.bufs[i][:0])
		if err != nil {
			return out, err
		}
		s.bufs[i] = buf
		out = append(out, buf...)
	}
	if len(in) > 1 {
		// Each sub-result is in key order; a stable sort merges them and
		// keeps sub-filter order among copies of one cell.
		slices.SortStableFunc(out[start:], compareCells)
	}
	return out, nil
}

// compareCells orders cells as keys do: family, qualifier, newest first.
func compareCells(a, b cell) int {
	if c := strings.Compare(a.family, b.family); c != 0 {
		return c
	}
	if c := strings.Compare(a.qualifier, b.qualifier); c != 0 {
		return c
	}
	switch {
	case a.ts > b.ts:
		return -1
	case a.ts < b.ts:
		return 1
	}
	return 0
}

// predStage passes the cells for which pred holds.
type predStage struct {
	pred func(c *cell) (bool, error)
}

func (predStage) startRow(string) {}

func (s predStage) apply(in, out []cell) ([]cell, error) {
	for i := range in {
		ok, err := s.pred(&in[i])
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, in[i])
		}
	}
	return out, nil
}

type rowKeyStage struct {
	re    *byteRegexp
	match bool
}

func (f rowKeyFilter) compile() (stage, error) {
	if f == "" {
		return nil, fmt.Errorf("%w: %s: empty row key pattern", ErrInvalidFilter, f)
	}
	re, err := compileByteRegexp(string(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	return &rowKeyStage{re: re}, nil
}

func (s *rowKeyStage) startRow(key string) { s.match = s.re.matchString(key) }

func (s *rowKeyStage) apply(in, out []cell) ([]cell, error) {
	if s.match {
		out = append(out, in...)
	}
	return out, nil
}

func (f familyFilter) compile() (stage, error) {
	return memoMatch(f, string(f), func(c *cell) (string, string) { return c.family, c.family })
}

func (f columnFilter) compile() (stage, error) {
	return memoMatch(f, string(f), func(c *cell) (string, string) { return c.column, c.qualifier })
}

// memoMatch compiles pattern into a stage passing the cells whose subject
// it matches; of is the cell's key, under which the answer is kept while
// it repeats (cells of one column come together), and its subject.
func memoMatch(f Filter, pattern string, of func(*cell) (key, subject string)) (stage, error) {
	re, err := compileByteRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	var last string
	var lastOK, valid bool
	return predStage{func(c *cell) (bool, error) {
		if key, subject := of(c); !valid || key != last {
			last, lastOK, valid = key, re.matchString(subject), true
		}
		return lastOK, nil
	}}, nil
}

func (f valueFilter) compile() (stage, error) {
	re, err := compileByteRegexp(string(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	return predStage{func(c *cell) (bool, error) {
		v, err := c.value()
		if err != nil {
			return false, err
		}
		return re.match(v), nil
	}}, nil
}

func (f timestampRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		return c.ts >= f.start && (f.end == 0 || c.ts < f.end), nil
	}}, nil
}

func (f columnRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		return c.family == f.family && c.qualifier >= f.start && (f.end == "" || c.qualifier < f.end), nil
	}}, nil
}

func (f valueRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		v, err := c.value()
		if err != nil {
			return false, err
		}
		return (f.start == nil || bytes.Compare(v, f.start) >= 0) && (f.end == nil || bytes.Compare(v, f.end) < 0), nil
	}}, nil
}

type stripStage struct{}

func (stripValueFilter) compile() (stage, error) { return stripStage{}, nil }
func (stripStage) startRow(string)               {}
func (stripStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		c.val = nil
		out = append(out, c)
	}
	return out, nil
}

type latestNStage struct {
	n      int
	column string
	count  int
}

func (f latestNFilter) compile() (stage, error) {
	if f <= 0 {
		return nil, fmt.Errorf("%w: %s: limit must be positive", ErrInvalidFilter, f)
	}
	return &latestNStage{n: int(f)}, nil
}

func (s *latestNStage) startRow(string) { s.column, s.count = "", 0 }

func (s *latestNStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if c.column != s.column {
			s.column, s.count = c.column, 0
		}
		if s.count < s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

type rowLimitStage struct{ n, count int }

func (f cellsPerRowLimitFilter) compile() (stage, error) {
	if f <= 0 {
		return nil, fmt.Errorf("%w: %s: limit must be positive", ErrInvalidFilter, f)
	}
	return &rowLimitStage{n: int(f)}, nil
}

func (s *rowLimitStage) startRow(string) { s.count = 0 }

func (s *rowLimitStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if s.count < s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

type rowOffsetStage struct{ n, count int }

func (f cellsPerRowOffsetFilter) compile() (stage, error) {
	if f < 0 {
		return nil, fmt.Errorf("%w: %s: offset must not be negative", ErrInvalidFilter, f)
	}
	return &rowOffsetStage{n: int(f)}, nil
}

func (s *rowOffsetStage) startRow(string) { s.count = 0 }

func (s *rowOffsetStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if s.count >= s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

type rowSampleStage struct {
	p     float64
	match bool
}

func (f rowSampleFilter) compile() (stage, error) {
	if f <= 0 || f >= 1 {
		return nil, fmt.Errorf("%w: %s: probability must be in (0, 1)", ErrInvalidFilter, f)
	}
	return &rowSampleStage{p: float64(f)}, nil
}

func (s *rowSampleStage) startRow(string) { s.match = rand.Float64() < s.p }

func (s *rowSampleStage) apply(in, out []cell) ([]cell, error) {
	if s.match {
		out = append(out, in...)
	}
	return out, nil
}

// conditionStage must get the whole row in one apply call.
type conditionStage struct {
	pred, ifTrue, ifFalse stage
	buf                   []cell
}

func (f conditionFilter) compile() (stage, error) {
	if f.pred == nil {
		return nil, fmt.Errorf("%w: condition without a predicate", ErrInvalidFilter)
	}
	s := &conditionStage{ifTrue: blockStage{}, ifFalse: blockStage{}}
	var err error
	if s.pred, err = f.pred.compile(); err != nil {
		return nil, err
	}
	if f.ifTrue != nil {
		if s.ifTrue, err = f.ifTrue.compile(); err != nil {
			return nil, err
		}
	}
	if f.ifFalse != nil {
		if s.ifFalse, err = f.ifFalse.compile(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *conditionStage) startRow(key string) {
	s.pred.startRow(key)
	s.ifTrue.startRow(key)
	s.ifFalse.startRow(key)
}

func (s *conditionStage) apply(in, out []cell) ([]cell, error) {
	var err error
	s.buf, err = s.pred.apply(in, s.buf[:0])
	if err != nil {
		return out, err
	}
	if len(s.buf) > 0 {
		return s.ifTrue.apply(in, out)
	}
	return s.ifFalse.apply(in, out)
}

// byteRegexp is an RE2 pattern that matches raw bytes, each byte standing
// for the code point of the same value (Latin-1), as Cloud Bigtable matches.
// Go's regexp decodes UTF-8, so pattern and input are both widened to the
// UTF-8 encoding of their Latin-1 reading; ASCII needs no widening.
//
// A pattern that is a plain literal, like most family and column filters
// ("anchor", "contents"), matches by comparison instead.
type byteRegexp struct {
	re    *regexp.Regexp
	lit   string // the bytes the pattern matches, when isLit
	isLit bool
}

func compileByteRegexpOnce(pattern string) (*byteRegexp, error) {
	re, err := regexp.Compile(`^(?:` + latin1(pattern) + `)$`)
	if err != nil {
		return nil, err
	}
	r := &byteRegexp{re: re}
	r.lit, r.isLit = literalBytes(latin1(pattern))
	return r, nil
}

// literalBytes returns the one byte string a latin1-encoded pattern
// matches, if it matches exactly one.
func literalBytes(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	if re.Op == syntax.OpEmptyMatch {
		return "", true
	}
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return "", false
	}
	b := make([]byte, len(re.Rune))
	for i, r := range re.Rune {
		if r > 0xFF {
			return "", false // no byte is this code point: leave it to the regexp
		}
		b[i] = byte(r)
	}
	return string(b), true
}

func (r *byteRegexp) matchString(s string) bool {
	if r.isLit {
		return s == r.lit
	}
	return r.re.MatchString(latin1(s))
}

func (r *byteRegexp) match(b []byte) bool {
	if r.isLit {
		return string(b) == r.lit
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return r.re.MatchString(latin1(string(b)))
		}
	}
	return r.re.Match(b)
}

// latin1 returns s with every byte >= 0x80 replaced by the UTF-8 encoding of
// the code point of the same value.
func latin1(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			b.WriteByte(s[i])
		} else {
			b.WriteRune(rune(s[i]))
		}
	}
	return b.String()
}
