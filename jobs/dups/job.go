// Package dups is the dups job: a 64-bit simhash of each page's text
// shingles (dup:simhash), and clusters of duplicates, exact by
// contents:sha256 or near by simhash, whose representative every member
// names in dup:of.
package dups

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
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

// Prepare reads every page's text, hashes it and clusters the pages.
func (j *Job) Prepare(ctx context.Context, env *jobs.Env) error {
	*j = Job{MaxDistance: j.MaxDistance, oldMembers: map[int32]string{}, members: map[int32]string{}}
	maxDist := j.MaxDistance
	if maxDist == 0 {
		maxDist = MaxDistance
	}
	var pages []Page
	var ranks []float64
	var rows, other int64
	var need []int // pages whose simhash is to be computed from text:body
	err := env.W.ScanSelect(ctx, "", "", webtable.Select{
		Columns: []string{"text:" + text.ColSrc, "contents:sha256", "rank:" + rank.ColPage, "dup:" + ColSimhash, "dup:" + ColOf, "dup:" + ColSrc, "dup:" + ColMembers},
	}, func(r webtable.Row) bool {
		rows++
		var p Page
		rk := 0.0
		var src, oldSim, oldOf, oldSrc string
		var oldMembers string
		var hasSrc, hasSim, hasOf, hasMembers bool
		var oldTS webtable.Timestamp
		for _, c := range r.Cells {
			if c.Family == webtable.FamilyDup {
				oldTS = max(oldTS, c.Timestamp)
			}
			switch c.Column() {
			case "text:" + text.ColSrc:
				src, hasSrc = string(c.Value), true
				j.ts = max(j.ts, c.Timestamp)
			case "contents:sha256":
				p.SHA256 = string(c.Value)
				j.ts = max(j.ts, c.Timestamp)
			case "rank:" + rank.ColPage:
				if v, ok := rank.ParseRank(string(c.Value)); ok {
					rk = v
				}
				j.ts = max(j.ts, c.Timestamp)
			case "dup:" + ColSimhash:
				oldSim, hasSim = string(c.Value), true
			case "dup:" + ColOf:
				oldOf, hasOf = string(c.Value), true
			case "dup:" + ColSrc:
				oldSrc = string(c.Value)
			case "dup:" + ColMembers:
				oldMembers, hasMembers = string(c.Value), true
			}
		}
		if !hasSrc {
			other++
			if !hasSim && !hasOf && oldSrc == "" && !hasMembers {
				return true
			}
		}
		i := len(j.keys)
		if hasMembers {
			j.oldMembers[int32(i)] = oldMembers
		}
		if hasSrc {
			// NB: the hash of an unchanged text is kept: only pages
			// whose text:src moved are read again (see below).
			if h, ok := parseSimhash(oldSim); ok && hasSim && oldSrc == src && !env.Full {
				p.Simhash = h
			} else {
				need = append(need, i)
			}
		}
		j.keys = append(j.keys, r.Key)
		pages = append(pages, p)
		ranks = append(ranks, rk)
		j.oldSim, j.oldOf, j.oldSrc = append(j.oldSim, oldSim), append(j.oldOf, oldOf), append(j.oldSrc, oldSrc)
		j.src = append(j.src, src)
		j.oldTS = append(j.oldTS, oldTS)
		j.hasOldSim, j.hasOf = append(j.hasOldSim, hasSim), append(j.hasOf, hasOf)
		j.text = append(j.text, hasSrc)
		return true
	})
	if err != nil {
		return err
	}
	if err := j.hashTexts(ctx, env, pages, need); err != nil {
		return err
	}
	j.sims = make([]uint64, len(pages))
	for i := range pages {
		j.sims[i] = pages[i].Simhash
	}
	j.Hashed = len(need)
	env.Counts.Add(rows, 0, 0, other)
	// Pages without text take part in nothing.
	valid := make([]int, 0, len(pages))
	for i := range pages {
		if j.text[i] {
			valid = append(valid, i)
		}
	}
	sub := make([]Page, len(valid))
	for k, i := range valid {
		sub[k] = pages[i]
	}
	groups := Cluster(sub, maxDist)
	members := map[int][]int{}
	for k, g := range groups {
		members[g] = append(members[g], valid[k])
	}
	j.of = make([]int32, len(pages))
	for i := range j.of {
		j.of[i] = -1
	}
	j.Clusters = 0
	for _, ms := range members {
		if len(ms) < 2 {
			continue
		}
		j.Clusters++
		rep := slices.MinFunc(ms, func(a, b int) int {
			if c := cmp.Compare(ranks[b], ranks[a]); c != 0 {
				return c // the highest rank first
			}
			if c := cmp.Compare(len(j.keys[a]), len(j.keys[b])); c != 0 {
				return c // then the shortest URL
			}
			return cmp.Compare(j.keys[a], j.keys[b])
		})
		slices.Sort(ms)
		keys := make([]string, 0, min(len(ms), MaxMembers))
		for _, m := range ms {
			j.of[m] = int32(rep)
			if len(keys) < MaxMembers {
				keys = append(keys, j.keys[m])
			}
		}
		j.members[int32(rep)] = FormatMembers(keys)
	}
	env.Logf("%d pages with text, %d clusters of duplicates", len(valid), j.Clusters)
	return nil
}

// parseSimhash reads a stored dup:simhash; ok is false for another form.
func parseSimhash(s string) (uint64, bool) {
	h, err := strconv.ParseUint(s, 16, 64)
	if err != nil || FormatSimhash(h) != s {
		return 0, false
	}
	return h, true
}

// rescanShare is the share of pages past which hashTexts reads the whole
// table's text in one scan rather than page by page.
const rescanShare = 0.05

// hashTexts computes the simhash of pages[need] from their text:body:
// one row read each when they are few, else one scan of the table.
func (j *Job) hashTexts(ctx context.Context, env *jobs.Env, pages []Page, need []int) error {
	if len(need) == 0 {
		return nil
	}
	if float64(len(need)) <= rescanShare*float64(len(pages)) {
		for _, i := range need {
			r, err := env.W.Get(ctx, j.keys[i], webtable.Query{Column: "text:" + text.ColBody})
			if err != nil {
				return err
			}
			if len(r.Cells) > 0 {
				pages[i].Simhash = Simhash(string(r.Cells[0].Value))
			}
		}
		return nil
	}
	k := 0 // NB: both in key order: walk need beside the scan
	return env.W.ScanSelect(ctx, "", "", webtable.Select{Columns: []string{"text:" + text.ColBody}}, func(r webtable.Row) bool {
		for k < len(need) && j.keys[need[k]] < r.Key {
			k++
		}
		if k == len(need) {
			return false
		}
		if j.keys[need[k]] == r.Key && len(r.Cells) > 0 {
			pages[need[k]].Simhash = Simhash(string(r.Cells[0].Value))
		}
		return true
	})
}

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
