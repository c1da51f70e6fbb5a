package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// Scoring. A hit's score is its BM25 score over the fields (each field's
// score times its [Weights]) times a PageRank prior:
//
//	score = bm25 × (1 + PriorWeight × ln(1 + N × rank))
//
// where rank is the page's rank:page and N the documents in the index, so
// that N × rank is about 1 for a page of average rank (prior 1.17), 0 for
// a page no rank was computed for (prior 1) and grows slowly with rank (a
// page linked as much as 100 average pages gets 2.15).
const PriorWeight = 0.25

// Candidates is how many BM25 hits per hit asked for are read, at least,
// before the prior reorders them and duplicates and hosts are folded.
const Candidates = 5

// MaxPerHost is how many hits a host gets, unless the search names sites.
const MaxPerHost = 2

// Request is one search.
type Request struct {
	Query string
	Filters
	// Limit is how many hits to return; 0 means 10.
	Limit int
	// MaxScan bounds the candidates read for a phrase of stop words
	// alone; 0 means MaxScan.
	MaxScan int
}

// Hit is one result: a page's version.
type Hit struct {
	Rank    int                // 1 for the first hit
	Key     string             // row key
	URL     string             // from the fetch record (or built from the key)
	Title   string             // text:title of the version
	Snippet Snippet            // from its text:body
	Score   float64            // BM25 × prior
	BM25    float64            // BM25 alone
	Time    webtable.Timestamp // the version's timestamp (its fetch)
	Lang    string
	Capped  bool // the version's text reached the text job's cap
	// DupOf is the representative of the page's duplicate cluster ("" when
	// none); the other members were folded into this hit.
	DupOf string
}

// Result is a search's hits and what it read to find them.
type Result struct {
	Query   Query
	Hits    []Hit
	Matches uint64 // matching versions in the index, before folding
	Took    time.Duration
	// Note says what the search could not do with the query's stop words
	// ("" when nothing): see MaxScan.
	Note string
}

// candidate is a BM25 hit before it is checked against the table.
type candidate struct {
	m     *bsearch.DocumentMatch
	key   string
	ts    webtable.Timestamp
	score float64
	of    string
}

// Search runs req over the index and reads each hit's version from w.
// A hit is shown only if its version is the one w holds for that time
// (query get --at): a version the index has but the table no longer has,
// or has a newer one for, is skipped.
func (r *Reader) Search(ctx context.Context, w *webtable.WebTable, req Request) (*Result, error) {
	start := time.Now()
	q, err := Parse(req.Query)
	if err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 10
	}
	f := req.Filters
	f.Sites = append(slices.Clip(f.Sites), q.Sites...)
	m := NewMapping()
	phrases, excluded := scanPhrases(m, q)
	scan := len(phrases) > 0 || len(excluded) > 0
	bq := bleveQuery(m, q, f, scan)
	n, _ := r.alias.DocCount()
	res := &Result{Query: q}
	sel := &selector{w: w, at: f.At, limit: limit, perHost: len(f.Sites) == 0, phrases: phrases, excluded: excluded,
		seenID: map[string]bool{}, seenCluster: map[string]bool{}, hosts: map[string]int{}}
	size := max(limit*Candidates, 50)
	maxRead := 10 * size
	if scan {
		size, maxRead = max(size, 1000), cmp.Or(req.MaxScan, MaxScan)
		size = min(size, maxRead)
	}
	exhausted, read := false, 0
	for from := 0; len(sel.hits) < limit; from += size {
		// The ranking pass reads no term locations: only the hits shown
		// need them, for their snippets (see locate).
		sr := bleve.NewSearchRequestOptions(bq, size, from, false)
		out, err := r.alias.SearchInContext(ctx, sr)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		res.Matches = out.Total
		cands := r.rescore(out.Hits, float64(n))
		for _, c := range cands {
			if err := sel.offer(ctx, c); err != nil {
				return nil, err
			}
			if len(sel.hits) == limit {
				break
			}
		}
		read += len(out.Hits)
		if len(out.Hits) < size {
			exhausted = true
			break
		}
		if from+size >= maxRead {
			break
		}
	}
	res.Note = stopNote(m, q, phrases, read, exhausted || len(sel.hits) == limit)
	if err := r.locate(ctx, bq, sel); err != nil {
		return nil, err
	}
	res.Hits = sel.hits
	res.Took = time.Since(start)
	return res, nil
}

// rescore applies the prior and sorts by the final score.
func (r *Reader) rescore(hits bsearch.DocumentMatchCollection, n float64) []candidate {
	out := make([]candidate, 0, len(hits))
	for _, m := range hits {
		key, ts, ok := parseID(m.ID)
		if !ok {
			continue
		}
		rank, of := r.meta(m.Index, key)
		prior := 1 + PriorWeight*math.Log1p(n*rank)
		out = append(out, candidate{m: m, key: key, ts: ts, score: m.Score * prior, of: of})
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return out
}

// selector keeps the hits that pass the checks, in order.
type selector struct {
	w           *webtable.WebTable
	at          webtable.Timestamp
	limit       int
	perHost     bool
	seenID      map[string]bool
	seenCluster map[string]bool
	hosts       map[string]int
	hits        []Hit
	ids         []string // the bleve document id of each hit
	bodies      []string // the text of each hit, for its snippet
	// phrases and excluded are the query's phrases of stop words alone,
	// looked for in each candidate's text; found is where, in each hit's.
	phrases, excluded []scanPhrase
	found             [][][2]int
}

// offer checks c against the table and the folding rules, and keeps it.
func (s *selector) offer(ctx context.Context, c candidate) error {
	if s.seenID[c.m.ID] {
		return nil
	}
	s.seenID[c.m.ID] = true
	ok, err := s.current(ctx, c)
	if err != nil || !ok {
		return err
	}
	cluster := c.key
	if c.of != "" {
		cluster = c.of
	}
	host := HostOf(c.key)
	if s.seenCluster[cluster] || (s.perHost && s.hosts[host] >= MaxPerHost) {
		return nil
	}
	h, body, err := s.read(ctx, c)
	if err != nil {
		return err
	}
	ok, found := scanMatch(s.phrases, s.excluded, h.Title, body)
	if !ok {
		return nil
	}
	s.bodies = append(s.bodies, body)
	s.found = append(s.found, found)
	s.seenCluster[cluster] = true
	s.hosts[host]++
	h.Rank = len(s.hits) + 1
	s.hits = append(s.hits, h)
	s.ids = append(s.ids, c.m.ID)
	return nil
}

// current reports whether c's version is the one the table shows at s.at:
// the newest contents version at or before it (the newest of all at 0).
func (s *selector) current(ctx context.Context, c candidate) (bool, error) {
	row, err := s.w.Get(ctx, c.key, webtable.Query{Column: "contents:sha256", Versions: -1})
	if err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	var want webtable.Timestamp = -1
	for _, cell := range row.Cells {
		if (s.at == 0 || cell.Timestamp <= s.at) && cell.Timestamp > want {
			want = cell.Timestamp
		}
	}
	return want == c.ts, nil
}

// read builds the hit of c from its version's cells, and returns its text.
func (s *selector) read(ctx context.Context, c candidate) (Hit, string, error) {
	h := Hit{Key: c.key, Time: c.ts, Score: c.score, BM25: c.m.Score, DupOf: c.of}
	row, err := s.w.Get(ctx, c.key, webtable.Query{Family: webtable.FamilyText, At: c.ts})
	if err != nil {
		return h, "", fmt.Errorf("search: %w", err)
	}
	var body string
	for _, cell := range row.Cells {
		if cell.Timestamp != c.ts {
			continue
		}
		switch cell.Qualifier {
		case text.ColTitle:
			h.Title = string(cell.Value)
		case text.ColBody:
			body = string(cell.Value)
		case text.ColLang:
			h.Lang = string(cell.Value)
		}
	}
	h.Capped = len(body) >= text.MaxText-CappedWithin
	fr, err := s.w.Get(ctx, c.key, webtable.Query{Column: "fetch:record"})
	if err != nil {
		return h, "", fmt.Errorf("search: %w", err)
	}
	fr.Key = c.key
	h.URL = urlOf(fr)
	return h, body, nil
}
