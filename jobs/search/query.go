package search

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/webtable/webtable/webtable"
)

// textFields are the fields a word or phrase is looked for in; phrases
// skip the URL (its analyzer keeps no positions).
var (
	wordFields   = []string{FieldTitle, FieldAnchor, FieldURL, FieldBody}
	phraseFields = []string{FieldTitle, FieldAnchor, FieldBody}
)

// Filters narrow a search without changing its scores.
type Filters struct {
	Sites []string           // hosts or domains; a hit is on one of them
	Lang  string             // ISO 639-1; "" any
	At    webtable.Timestamp // versions valid then; 0 the newest ones
}

// analyzable reports whether s leaves a term after the "en" analyzer (a
// stop word alone does not, and would match nothing).
func analyzable(m *mapping.IndexMappingImpl, s string) bool {
	ts, err := m.AnalyzeText(en.AnalyzerName, []byte(s))
	return err == nil && len(ts) > 0
}

// bleveQuery turns a parsed query and filters into bleve's query. With
// scan (the query has a phrase of stop words alone, looked for in the
// text, see MaxScan) and no other word or phrase, it matches every
// version the filters let through.
func bleveQuery(m *mapping.IndexMappingImpl, q Query, f Filters, scan bool) query.Query {
	var must, not []query.Query
	field := func(fields []string, s string, phrase bool) query.Query {
		var d []query.Query
		for _, name := range fields {
			var fq query.Query
			if phrase {
				pq := query.NewMatchPhraseQuery(s)
				pq.SetField(name)
				pq.SetBoost(Weights[name])
				fq = pq
			} else {
				mq := query.NewMatchQuery(s)
				mq.SetField(name)
				mq.SetBoost(Weights[name])
				mq.SetOperator(query.MatchQueryOperatorAnd)
				fq = mq
			}
			d = append(d, fq)
		}
		return query.NewDisjunctionQuery(d)
	}
	for _, w := range q.Words {
		if analyzable(m, w) {
			must = append(must, field(wordFields, w, false))
		}
	}
	for _, p := range q.Phrases {
		if analyzable(m, p) {
			must = append(must, field(phraseFields, p, true))
		}
	}
	for _, e := range q.Excluded {
		if !analyzable(m, e) {
			continue
		}
		if strings.Contains(e, " ") {
			not = append(not, field(phraseFields, e, true))
		} else {
			not = append(not, field(wordFields, e, false))
		}
	}
	switch {
	case len(must) == 0 && !scan:
		return query.NewMatchNoneQuery()
	case len(must) == 0:
		must = append(must, query.NewMatchAllQuery())
	}
	bq := query.NewBooleanQuery(must, nil, nil)
	if len(not) > 0 {
		bq.AddMustNot(not...)
	}
	// NB: a BooleanQuery holds one filter: AddFilter replaces it.
	filters := []query.Query{validAt(f.At)}
	if len(f.Sites) > 0 {
		var d []query.Query
		for _, s := range f.Sites {
			tq := query.NewTermQuery(strings.ToLower(strings.Trim(s, ".")))
			tq.SetField(FieldSite)
			d = append(d, tq)
		}
		filters = append(filters, query.NewDisjunctionQuery(d))
	}
	if f.Lang != "" {
		tq := query.NewTermQuery(strings.ToLower(f.Lang))
		tq.SetField(FieldLang)
		filters = append(filters, tq)
	}
	bq.AddFilter(query.NewConjunctionQuery(filters))
	return bq
}

// validAt selects the versions valid at t: from <= t < to; t = 0, the
// newest versions (to = Forever).
func validAt(t webtable.Timestamp) query.Query {
	yes, no := true, false
	if t == 0 {
		// to = Forever exactly: one term of the numeric field, not the
		// many of an open range (building those was 2% of a search's
		// CPU in BenchmarkSearch's profile).
		forever := float64(Forever)
		q := query.NewNumericRangeInclusiveQuery(&forever, &forever, &yes, &yes)
		q.SetField(FieldTo)
		return q
	}
	at := float64(t)
	from := query.NewNumericRangeInclusiveQuery(nil, &at, nil, &yes)
	from.SetField(FieldFrom)
	to := query.NewNumericRangeInclusiveQuery(&at, nil, &no, nil)
	to.SetField(FieldTo)
	return query.NewConjunctionQuery([]query.Query{from, to})
}
