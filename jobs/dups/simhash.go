package dups

import (
	"hash/fnv"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// ShingleWords is how many consecutive words make a shingle: one, since
// on short pages every changed shingle moves bits (see MaxDistance).
const ShingleWords = 1

// Simhash is the 64-bit simhash of text's shingles: each distinct shingle
// (ShingleWords lower-cased words; words are runs of letters and digits)
// is hashed with FNV-1a, and bit i of the result is set when more shingles
// have bit i set than not. Text of fewer words is one shingle. Text with
// no word hashes to 0.
func Simhash(text string) uint64 {
	hs := shingles(text)
	if len(hs) == 0 {
		return 0
	}
	var v [64]int32
	for _, h := range hs {
		for i := range 64 {
			if h&(1<<i) != 0 {
				v[i]++
			} else {
				v[i]--
			}
		}
	}
	var out uint64
	for i := range 64 {
		if v[i] > 0 {
			out |= 1 << i
		}
	}
	return out
}

// Distance is the Hamming distance of two simhashes.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// shingles returns the distinct shingle hashes of text, sorted.
func shingles(text string) []uint64 {
	var words []string
	buf := make([]byte, 0, 64)
	var all []byte
	var starts []int
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			continue
		}
		if len(buf) > 0 {
			starts = append(starts, len(all))
			all = append(all, buf...)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		starts = append(starts, len(all))
		all = append(all, buf...)
	}
	for i, s := range starts {
		e := len(all)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		words = append(words, string(all[s:e]))
	}
	if len(words) == 0 {
		return nil
	}
	k := min(ShingleWords, len(words))
	out := make([]uint64, 0, len(words)-k+1)
	h := fnv.New64a()
	for i := 0; i+k <= len(words); i++ {
		h.Reset()
		for j := i; j < i+k; j++ {
			h.Write([]byte(words[j]))
			h.Write([]byte{' '})
		}
		out = append(out, mix(h.Sum64()))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mix is splitmix64's finaliser: FNV-1a's bits are not independent enough
// for a simhash, whose every bit is a vote.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
