// Package keyspace holds the two facts about row keys that every layer
// shares: the longest key and the successor of a key prefix.
//
// NB: it imports nothing, and exists only because urlkey and bigtable, the two
// lowest layers, must not import each other (internal/lint) yet both need
// these; the layers above re-export the limit in their own vocabulary
// (urlkey.MaxKeyLen, bigtable.MaxRowKeySize, webtable.MaxKeyLen), each the
// same constant.
package keyspace

// MaxKeyLen is the longest row key, in bytes: 4 KiB, the row key limit of
// Cloud Bigtable. Keys have 1 to MaxKeyLen bytes.
const MaxKeyLen = 4 << 10

// PrefixEnd returns the least key greater than every key that starts with p:
// p without its trailing 0xFF bytes, its last byte then incremented.
//
//	"com.cnn/" -> "com.cnn0"
//	"a\xff"    -> "b"
//	"\xff\xff" -> ""  (no such key: every key from p on starts with p)
//	""         -> ""
//
// When there is none it returns the zero value ("" or nil), which a range
// end reads as unbounded. The result never shares memory with p.
func PrefixEnd[K ~string | ~[]byte](p K) K {
	i := len(p) - 1
	for i >= 0 && p[i] == 0xFF {
		i--
	}
	if i < 0 {
		var none K
		return none
	}
	end := make([]byte, i+1)
	copy(end, p[:i+1])
	end[i]++
	return K(end)
}
