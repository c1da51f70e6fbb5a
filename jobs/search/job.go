package search

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/webtable"
)

// BatchDocs is how many documents one bleve batch carries; a batch
// returns once it is on disk (bleve's scorch waits for persistence), so a
// split recorded done has its documents stored.
const BatchDocs = 512

// Row records (rows.go), per row: the digest of its documents and their
// timestamps ("d" + key), and its rank and representative ("m" + key).
const (
	digestPrefix = "d"
	metaPrefix   = "m"
)

// Job is the search job: it keeps one shard's index up to date with the
// table.
type Job struct {
	// Shard is the index the job writes.
	Shard *Shard
}

// Name is "search".
func (*Job) Name() string { return "search" }

// Family is webtable.FamilyText: the job writes no cells, and keeps its
// progress rows (~job/search/...) in the family it reads.
func (*Job) Family() string { return webtable.FamilyText }

// Prepare does nothing: each row is its own input.
func (*Job) Prepare(context.Context, *jobs.Env) error { return nil }

// Select is what the job reads of each row.
var Select = webtable.Select{
	AllVersions: []string{webtable.FamilyText},
	Families:    []string{webtable.FamilyAnchor},
	Columns:     []string{"fetch:record", "rank:page", "dup:of"},
}

// RunSplit indexes the versions of the rows of s whose documents differ
// from those the index holds, and updates the rank and representative of
// rows whose rank or cluster changed.
func (j *Job) RunSplit(ctx context.Context, env *jobs.Env, s jobs.Split) error {
	idx := j.Shard.idx
	// NB: one batch is written while the scan fills the next, so that
	// the scan's time hides behind bleve's analysis and persistence.
	full := make(chan *pending, 1)
	written := make(chan error, 1)
	go func() {
		var first error
		for p := range full {
			if first == nil {
				// NB: the row records after the documents: killed
				// between the two, a rerun finds the old records and
				// indexes those rows again.
				if err := idx.Batch(p.b); err != nil {
					first = fmt.Errorf("search: writing to the index: %w", err)
				} else {
					j.Shard.written.Add(int64(p.b.Size()))
					first = putRows(j.Shard.rows, p.recs)
				}
			}
		}
		written <- first
	}()
	b := &pending{b: idx.NewBatch(), recs: map[string][]byte{}}
	var rows, changed, unchanged, other int64
	var rerr error
	err := env.W.ScanSelect(ctx, s.Start, s.End, Select, func(r webtable.Row) bool {
		rows++
		ch, hasDocs, err := j.updateRow(b, r, env.Full)
		switch {
		case err != nil:
			rerr = err
		case ch:
			changed++
		case hasDocs:
			unchanged++
		default:
			other++
		}
		if b.b.Size() >= BatchDocs || len(b.recs) >= BatchDocs {
			full <- b
			b = &pending{b: idx.NewBatch(), recs: map[string][]byte{}}
		}
		return rerr == nil
	})
	if b.b.Size() > 0 || len(b.recs) > 0 {
		full <- b
	}
	close(full)
	werr := <-written
	env.Counts.Add(rows, changed, unchanged, other)
	return errors.Join(err, rerr, werr)
}

// pending is one batch of documents and the row records that go with it.
type pending struct {
	b    *bleve.Batch
	recs map[string][]byte // nil: delete
}

// updateRow adds to p what changed in r since it was indexed.
func (j *Job) updateRow(p *pending, r webtable.Row, full bool) (changed, hasDocs bool, err error) {
	b := p.b
	docs, digest := rowDocs(r)
	dkey := digestPrefix + r.Key
	old, err := getRow(j.Shard.rows, dkey)
	if err != nil {
		return false, false, err
	}
	oldDigest, oldTS, _ := strings.Cut(string(old), " ")
	if full || oldDigest != digest {
		keep := map[string]bool{}
		var tss []string
		for _, d := range docs {
			keep[d.ID] = true
			_, ts, _ := strings.Cut(d.ID[len(r.Key):], " ")
			tss = append(tss, ts)
			if err := b.Index(d.ID, d.Fields); err != nil {
				return false, false, fmt.Errorf("search: indexing %q: %w", d.ID, err)
			}
		}
		for _, ts := range strings.Fields(oldTS) {
			if id := r.Key + " " + ts; !keep[id] {
				b.Delete(id)
			}
		}
		if len(docs) == 0 {
			p.recs[dkey] = nil
		} else {
			p.recs[dkey] = []byte(digest + " " + strings.Join(tss, " "))
		}
		changed = old != nil || len(docs) > 0
	}
	meta := metaOf(r)
	mkey := metaPrefix + r.Key
	oldMeta, err := getRow(j.Shard.rows, mkey)
	if err != nil {
		return false, false, err
	}
	if string(oldMeta) != meta {
		if meta == "" {
			p.recs[mkey] = nil
		} else {
			p.recs[mkey] = []byte(meta)
		}
		changed = true
	}
	return changed, len(docs) > 0, nil
}

// metaOf is the row's rank and representative, "RANK DUPOF" ("" when it
// has neither).
func metaOf(r webtable.Row) string {
	var rank, of string
	for _, c := range r.Cells {
		switch {
		case c.Family == webtable.FamilyRank && c.Qualifier == "page":
			rank = string(c.Value)
		case c.Family == webtable.FamilyDup && c.Qualifier == "of":
			of = string(c.Value)
		}
	}
	if rank == "" && of == "" {
		return ""
	}
	return rank + " " + of
}

var _ jobs.Job = (*Job)(nil)
