package search

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/simple"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Form names the index's layout: its mapping and what its documents and
// internal records hold. An index of another form is rebuilt, never read.
const Form = "webtable-search 3"

// The fields of a document: one document per stored HTML version.
const (
	// FieldTitle, FieldBody and FieldAnchor are text, analysed by bleve's
	// "en" analyzer (Unicode words, lower case, English stop words,
	// possessives, Porter stemming), with term positions for phrases.
	FieldTitle  = "title"
	FieldBody   = "body"
	FieldAnchor = "anchor" // one anchor text per referring host
	// FieldURL is the words of the URL (host and path), bleve's "simple"
	// analyzer (runs of letters, lower case).
	FieldURL = "url"
	// FieldSite holds the host and each parent domain down to the
	// registrable one (www.cnn.com, cnn.com), and FieldLang the text's
	// language (ISO 639-1): keywords, matched whole.
	FieldSite = "site"
	FieldLang = "lang"
	// FieldFrom and FieldTo bound the version's validity in microseconds
	// since 1970: from its fetch to the next stored version's, [from, to).
	// The newest version's FieldTo is [Forever].
	FieldFrom = "from"
	FieldTo   = "to"
	// FieldCapped is "yes" on a version whose visible text reached the
	// text job's cap (jobs/text.MaxText): only its first bytes are held.
	FieldCapped = "capped"
)

// Forever is FieldTo of a page's newest version.
const Forever = 1e18

// Weights are the boosts of the text fields in the BM25 score of a word
// or phrase: a match in the title counts three times one in the body.
var Weights = map[string]float64{
	FieldTitle:  3,
	FieldAnchor: 2,
	FieldURL:    1.5,
	FieldBody:   1,
}

// NewMapping is the index's mapping: a static mapping of the fields
// above (no dynamic fields, nothing stored: titles, texts and URLs are read
// from the WebTable for the hits shown), scored by BM25.
func NewMapping() *mapping.IndexMappingImpl {
	text := func(analyzer string, vectors bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = vectors
		f.DocValues = false
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	num := func() *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Store = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(FieldTitle, text(TextAnalyzer, true))
	dm.AddFieldMappingsAt(FieldBody, text(TextAnalyzer, true))
	dm.AddFieldMappingsAt(FieldAnchor, text(TextAnalyzer, true))
	dm.AddFieldMappingsAt(FieldURL, text(simple.Name, false))
	dm.AddFieldMappingsAt(FieldSite, kw())
	dm.AddFieldMappingsAt(FieldLang, kw())
	dm.AddFieldMappingsAt(FieldCapped, kw())
	dm.AddFieldMappingsAt(FieldFrom, num())
	dm.AddFieldMappingsAt(FieldTo, num())
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = "bm25"
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}
