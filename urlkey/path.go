package urlkey

// Character classes of RFC 3986 section 2.
const (
	unreservedBit = 1 << iota // ALPHA DIGIT - . _ ~
	pathBit                   // pchar but '%': unreserved, sub-delims, ':', '@'
	queryBit                  // pchar, '/', '?' but '%'
)

var class = func() (t [256]uint8) {
	const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	for i := 0; i < len(unreserved); i++ {
		t[unreserved[i]] = unreservedBit | pathBit | queryBit
	}
	const pchar = "!$&'()*+,;=:@" // sub-delims, ':' and '@'
	for i := 0; i < len(pchar); i++ {
		t[pchar[i]] = pathBit | queryBit
	}
	t['/'] = queryBit
	t['?'] = queryBit
	return t
}()

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// appendPath appends the canonical form of a raw URL path ("" or starting
// with '/'), following RFC 3986 section 6.2.2: bytes outside pchar are
// percent-encoded, escapes are upper-cased and decoded when they stand for an
// unreserved character, then dot segments are removed. The result starts
// with '/'.
//
// Dot segments are removed segment by segment as the path is written, so
// that a segment is tested after its escapes are normalised (/a/%2E%2E/b ->
// /b) without a second pass.
func appendPath(dst []byte, path string) []byte {
	root := len(dst)
	dst = append(dst, '/')
	if path == "" {
		return dst
	}
	s := path[1:]
	for {
		seg, rest, more := s, "", false
		for i := 0; i < len(s); i++ {
			if s[i] == '/' {
				seg, rest, more = s[:i], s[i+1:], true
				break
			}
		}
		start := len(dst) // dst ends with '/'
		dst = appendSegment(dst, seg)
		switch n := len(dst) - start; {
		case n == 1 && dst[start] == '.':
			dst = dst[:start]
		case n == 2 && dst[start] == '.' && dst[start+1] == '.':
			dst = dst[:start]
			// Drop the previous segment, if any: back to the '/' before it.
			if start-1 > root {
				j := start - 2
				for dst[j] != '/' {
					j--
				}
				dst = dst[:j+1]
			}
		default:
			if more {
				dst = append(dst, '/')
			}
		}
		if !more {
			return dst
		}
		s = rest
	}
}

// appendSegment appends one path segment with its escapes normalised.
func appendSegment(dst []byte, seg string) []byte {
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case class[c]&pathBit != 0:
			// NB: most bytes of most paths land here; copy the whole run.
			j := i + 1
			for j < len(seg) && class[seg[j]]&pathBit != 0 {
				j++
			}
			dst = append(dst, seg[i:j]...)
			i = j - 1
		case c == '%' && i+2 < len(seg) && isHex(seg[i+1]) && isHex(seg[i+2]):
			v := unhex(seg[i+1])<<4 | unhex(seg[i+2])
			if class[v]&unreservedBit != 0 {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upper(seg[i+1]), upper(seg[i+2]))
			}
			i += 2
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst
}

// appendQuery appends a raw query with the bytes that must be escaped
// percent-encoded and nothing else changed: existing escapes keep their case
// and are not decoded, parameters keep their order.
func appendQuery(dst []byte, q string) []byte {
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case class[c]&queryBit != 0:
			j := i + 1
			for j < len(q) && class[q[j]]&queryBit != 0 {
				j++
			}
			dst = append(dst, q[i:j]...)
			i = j - 1
		case c == '%' && i+2 < len(q) && isHex(q[i+1]) && isHex(q[i+2]):
			dst = append(dst, q[i:i+3]...)
			i += 2
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst
}
