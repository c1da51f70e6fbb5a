package search

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// CompactShare is the share of an index's documents that one open must
// write for Close to merge the index into one segment: a build does, a
// pass of index --follow that wrote a few pages does not (the merge
// rewrites the whole index).
const CompactShare = 0.1

// compact merges the index into one segment and waits until the files of
// the segments merged are gone. NB: at 100,000 pages the merged index is
// some 15% smaller than the segments scorch leaves (each has its own
// dictionaries), and scorch keeps the files of a snapshot replaced until
// its persister next waits for work: each internal write below is a
// batch it persists, after which it removes what no snapshot holds.
func compact(ctx context.Context, s *Shard) error {
	adv, err := s.idx.Advanced()
	if err != nil {
		return fmt.Errorf("search: merging the index: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := sc.ForceMerge(ctx, nil); err != nil {
		return fmt.Errorf("search: merging the index: %w", err)
	}
	for range 8 {
		st := sc.StatsMap()
		if st["num_files_on_disk"] == st["num_root_filesegments"] {
			return nil
		}
		if err := s.idx.SetInternal(formKey, []byte(Form)); err != nil {
			return fmt.Errorf("search: merging the index: %w", err)
		}
	}
	return nil
}
