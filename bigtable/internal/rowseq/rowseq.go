// Package rowseq turns a read that calls back once a row into an
// iterator: the Rows method of both stores (bigtable.Table and
// bigtable/cloud.Table) over their ReadRows.
package rowseq

import "iter"

// Of returns an iterator over the rows read passes to its callback, in
// order. An error of read ends the sequence as its last element, with a
// zero row, unless the loop stopped first: a stopped scan is not an error.
func Of[R any](read func(fn func(R) bool) error) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		stopped := false
		err := read(func(r R) bool {
			if !yield(r, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			var zero R
			yield(zero, err)
		}
	}
}
