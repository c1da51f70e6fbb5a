package dups

import (
	"context"
	"fmt"
	"strings"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/webtable"
)

// The columns the job writes.
const (
	ColSimhash = "simhash"
	ColOf      = "of"
	// ColSrc is the text:src the simhash was computed from.
	ColSrc = "src"
	// ColMembers, in a representative's row only, lists its cluster's
	// members (see FormatMembers).
	ColMembers = "members"
)

// MaxMembers bounds the members dup:members lists: a bigger cluster lists
// the first MaxMembers in key order.
const MaxMembers = 100

// FormatMembers is the stored form of dup:members: the members' row keys
// in key order, the representative's among them, one a line.
func FormatMembers(keys []string) string { return strings.Join(keys, "\n") }

// ParseMembers reads a stored dup:members.
func ParseMembers(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// BatchRows is how many rows one bulk write carries.
const BatchRows = 512

// Job is the dups job. It reads text:body (run the text job first) and
// rank:page (for the representative: run rank first). MaxDistance 0 means
// the package's MaxDistance.
type Job struct {
	MaxDistance int

	keys             []string
	sims             []uint64
	of               []int32 // node -> representative node, -1 alone
	oldSim, oldOf    []string
	oldMembers       map[int32]string // node -> stored dup:members, where there is one
	members          map[int32]string // representative node -> its dup:members
	hasOldSim, hasOf []bool
	text             []bool               // node -> its row has text
	src, oldSrc      []string             // node -> text:src, and the dup:src its stored hash came from
	oldTS            []webtable.Timestamp // node -> newest timestamp of its stored dup cells
	// Hashed counts the pages whose simhash the last Prepare computed (the
	// others' text had not changed since).
	Hashed   int
	ts       webtable.Timestamp
	Clusters int
}

// Name is "dups".
func (*Job) Name() string { return "dups" }

// Family is webtable.FamilyDup.
func (*Job) Family() string { return webtable.FamilyDup }

// FormatSimhash is the stored form of a simhash: 16 hex digits.
func FormatSimhash(h uint64) string { return fmt.Sprintf("%016x", h) }

// Groups returns, for tests, each page's representative key ("" alone).
func (j *Job) Groups() map[string]string {
	out := map[string]string{}
	for i, k := range j.keys {
		if j.of[i] >= 0 {
			out[k] = j.keys[j.of[i]]
		}
	}
	return out
}

// RunSplit writes the simhash and representative of the pages in s
// whose stored ones differ.
func (j *Job) RunSplit(ctx context.Context, env *jobs.Env, s jobs.Split) error {
	lo, hi := s.Within(j.keys)
	var batch []webtable.DerivedWrite
	var written, unchanged int64
	for i := lo; i < hi; i++ {
		// NB: a delete only when a cell must go, or a stored one is newer
		// than the inputs (see rank.Job.RunSplit).
		dw := webtable.DerivedWrite{Key: j.keys[i], Family: webtable.FamilyDup, DeleteFamily: j.oldTS[i] > j.ts}
		sim, of := "", ""
		hasText := j.text[i]
		if hasText {
			sim = FormatSimhash(j.sims[i])
			dw.Cells = append(dw.Cells,
				webtable.DerivedCell{Qualifier: ColSimhash, Timestamp: j.ts, Value: []byte(sim)},
				webtable.DerivedCell{Qualifier: ColSrc, Timestamp: j.ts, Value: []byte(j.src[i])})
		}
		if j.of[i] >= 0 {
			of = j.keys[j.of[i]]
			dw.Cells = append(dw.Cells, webtable.DerivedCell{Qualifier: ColOf, Timestamp: j.ts, Value: []byte(of)})
		}
		if (j.hasOldSim[i] || j.oldSrc[i] != "") && !hasText {
			dw.DeleteColumns = append(dw.DeleteColumns, ColSimhash, ColSrc)
		}
		if j.hasOf[i] && of == "" {
			dw.DeleteColumns = append(dw.DeleteColumns, ColOf)
		}
		members, isRep := j.members[int32(i)]
		oldMembers, hadMembers := j.oldMembers[int32(i)]
		if isRep {
			dw.Cells = append(dw.Cells, webtable.DerivedCell{Qualifier: ColMembers, Timestamp: j.ts, Value: []byte(members)})
		} else if hadMembers {
			dw.DeleteColumns = append(dw.DeleteColumns, ColMembers)
		}
		if !env.Full && j.hasOldSim[i] == hasText && j.oldSim[i] == sim && j.oldSrc[i] == j.src[i] && j.hasOf[i] == (of != "") && j.oldOf[i] == of &&
			hadMembers == isRep && oldMembers == members {
			unchanged++
			continue
		}
		written++
		batch = append(batch, dw)
		if len(batch) == BatchRows {
			if err := env.W.WriteDerived(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	env.Counts.Add(0, written, unchanged, 0)
	return env.W.WriteDerived(ctx, batch)
}

var _ jobs.Job = (*Job)(nil)
