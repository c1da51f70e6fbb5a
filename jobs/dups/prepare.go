package dups

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// Prepare reads every page's text, hashes it and clusters the pages.
func (j *Job) Prepare(ctx context.Context, env *jobs.Env) error {
	*j = Job{MaxDistance: j.MaxDistance, oldMembers: map[int32]string{}, members: map[int32]string{}}
	maxDist := j.MaxDistance
	if maxDist == 0 {
		maxDist = MaxDistance
	}
	s, err := j.scan(ctx, env)
	if err != nil {
		return err
	}
	if err := j.hashTexts(ctx, env, s.pages, s.need); err != nil {
		return err
	}
	j.sims = make([]uint64, len(s.pages))
	for i := range s.pages {
		j.sims[i] = s.pages[i].Simhash
	}
	j.Hashed = len(s.need)
	env.Counts.Add(s.rows, 0, 0, s.other)
	valid := j.cluster(s.pages, s.ranks, maxDist)
	env.Logf("%d pages with text, %d clusters of duplicates", valid, j.Clusters)
	return nil
}

// scanned is what Prepare's scan of the table gathers beside the Job's
// per-node slices.
type scanned struct {
	pages []Page    // node -> its SHA256, and its simhash when kept
	ranks []float64 // node -> its rank:page (0 without one)
	need  []int     // nodes whose simhash is to be computed from text:body
	// rows counts the rows read, other those without text:src.
	rows, other int64
}

// scan reads every row's text:src, contents:sha256, rank:page and stored
// dup cells, and makes a node of each row with text or with dup cells to
// clear.
func (j *Job) scan(ctx context.Context, env *jobs.Env) (*scanned, error) {
	s := &scanned{}
	err := env.W.ScanSelect(ctx, "", "", webtable.Select{
		Columns: []string{"text:" + text.ColSrc, "contents:sha256", "rank:" + rank.ColPage, "dup:" + ColSimhash, "dup:" + ColOf, "dup:" + ColSrc, "dup:" + ColMembers},
	}, func(r webtable.Row) bool {
		s.rows++
		c := j.readCells(r)
		if !c.hasSrc {
			s.other++
			if !c.hasSim && !c.hasOf && c.oldSrc == "" && !c.hasMembers {
				return true
			}
		}
		j.addNode(s, r.Key, c, env.Full)
		return true
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// rowCells is what Prepare reads of one row.
type rowCells struct {
	page                              Page
	rank                              float64
	src, oldSim, oldOf, oldSrc        string
	oldMembers                        string
	hasSrc, hasSim, hasOf, hasMembers bool
	oldTS                             webtable.Timestamp // newest timestamp of its dup cells
}

// readCells reads the cells of r that Prepare needs, and raises j.ts to
// the newest of its input cells.
func (j *Job) readCells(r webtable.Row) rowCells {
	var c rowCells
	for _, cell := range r.Cells {
		if cell.Family == webtable.FamilyDup {
			c.oldTS = max(c.oldTS, cell.Timestamp)
		}
		switch cell.Column() {
		case "text:" + text.ColSrc:
			c.src, c.hasSrc = string(cell.Value), true
			j.ts = max(j.ts, cell.Timestamp)
		case "contents:sha256":
			c.page.SHA256 = string(cell.Value)
			j.ts = max(j.ts, cell.Timestamp)
		case "rank:" + rank.ColPage:
			if v, ok := rank.ParseRank(string(cell.Value)); ok {
				c.rank = v
			}
			j.ts = max(j.ts, cell.Timestamp)
		case "dup:" + ColSimhash:
			c.oldSim, c.hasSim = string(cell.Value), true
		case "dup:" + ColOf:
			c.oldOf, c.hasOf = string(cell.Value), true
		case "dup:" + ColSrc:
			c.oldSrc = string(cell.Value)
		case "dup:" + ColMembers:
			c.oldMembers, c.hasMembers = string(cell.Value), true
		}
	}
	return c
}

// addNode appends the row key's node, read as c, to the Job and to s; its
// stored simhash is kept when its text:src has not moved (and not full),
// else the node goes to s.need.
func (j *Job) addNode(s *scanned, key string, c rowCells, full bool) {
	i := len(j.keys)
	if c.hasMembers {
		j.oldMembers[int32(i)] = c.oldMembers
	}
	p := c.page
	if c.hasSrc {
		// NB: the hash of an unchanged text is kept: only pages
		// whose text:src moved are read again (see hashTexts).
		if h, ok := parseSimhash(c.oldSim); ok && c.hasSim && c.oldSrc == c.src && !full {
			p.Simhash = h
		} else {
			s.need = append(s.need, i)
		}
	}
	j.keys = append(j.keys, key)
	s.pages = append(s.pages, p)
	s.ranks = append(s.ranks, c.rank)
	j.oldSim, j.oldOf, j.oldSrc = append(j.oldSim, c.oldSim), append(j.oldOf, c.oldOf), append(j.oldSrc, c.oldSrc)
	j.src = append(j.src, c.src)
	j.oldTS = append(j.oldTS, c.oldTS)
	j.hasOldSim, j.hasOf = append(j.hasOldSim, c.hasSim), append(j.hasOf, c.hasOf)
	j.text = append(j.text, c.hasSrc)
}

// cluster clusters the nodes with text (pages without text take part in
// nothing), sets j.of, j.members and j.Clusters, and returns how many
// nodes have text.
func (j *Job) cluster(pages []Page, ranks []float64, maxDist int) int {
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
		j.setCluster(ms, ranks)
	}
	return len(valid)
}

// setCluster makes the representative of the cluster of nodes ms the
// highest ranked, then the shortest key, then the first key; it points
// every member to it in j.of and lists the first MaxMembers in key order
// in j.members.
func (j *Job) setCluster(ms []int, ranks []float64) {
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
