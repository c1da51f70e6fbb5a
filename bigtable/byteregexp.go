package bigtable

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

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

func compileByteRegexp(pattern string) (*byteRegexp, error) {
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
