package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// BenchmarkIndexSize builds raw bleve indexes of the same documents with
// variants of the mapping, each merged to one segment, and reports each
// one's size over the text it holds: where the index's bytes go.
func BenchmarkIndexSize(b *testing.B) {
	ctx := context.Background()
	w := jobstest.Open(b, b.TempDir(), 0)
	defer w.Close()
	jobstest.Store(b, w, benchWeb(*benchPages))
	if _, err := jobs.Run(ctx, w, text.Job{}, jobs.Config{Workers: 2}); err != nil {
		b.Fatal(err)
	}
	var docs []document
	var textBytes, idBytes int64
	err := w.ScanSelect(ctx, "", "", Select, func(r webtable.Row) bool {
		ds, _ := rowDocs(r)
		for _, d := range ds {
			textBytes += int64(len(d.Fields[FieldTitle].(string)) + len(d.Fields[FieldBody].(string)))
			idBytes += int64(len(d.ID))
		}
		docs = append(docs, ds...)
		return true
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d documents, text %.1f MB, ids %.1f MB", len(docs), float64(textBytes)/1e6, float64(idBytes)/1e6)
	field := func(im *mapping.IndexMappingImpl, name string) *mapping.FieldMapping {
		return im.DefaultMapping.Properties[name].Fields[0]
	}
	variants := []struct {
		name string
		edit func(im *mapping.IndexMappingImpl)
	}{
		{"as-mapped", func(*mapping.IndexMappingImpl) {}},
		{"en-offsets", func(im *mapping.IndexMappingImpl) {
			for _, f := range []string{FieldTitle, FieldBody, FieldAnchor} {
				field(im, f).Analyzer = "en"
			}
		}},
		{"no-from-to", func(im *mapping.IndexMappingImpl) {
			field(im, FieldFrom).Index, field(im, FieldTo).Index = false, false
		}},
		{"filters-skip-freq-norm", func(im *mapping.IndexMappingImpl) {
			for _, f := range []string{FieldFrom, FieldTo, FieldSite, FieldLang, FieldCapped} {
				field(im, f).SkipFreqNorm = true
			}
		}},
		{"no-body-vectors", func(im *mapping.IndexMappingImpl) { field(im, FieldBody).IncludeTermVectors = false }},
		{"no-title-anchor-vectors", func(im *mapping.IndexMappingImpl) {
			field(im, FieldTitle).IncludeTermVectors = false
			field(im, FieldAnchor).IncludeTermVectors = false
		}},
		{"no-url", func(im *mapping.IndexMappingImpl) { field(im, FieldURL).Index = false }},
		{"no-site", func(im *mapping.IndexMappingImpl) { field(im, FieldSite).Index = false }},
		{"no-body", func(im *mapping.IndexMappingImpl) { field(im, FieldBody).Index = false }},
	}
	for _, v := range variants {
		im := NewMapping()
		v.edit(im)
		dir := filepath.Join(b.TempDir(), v.name)
		idx, err := bleve.New(dir, im)
		if err != nil {
			b.Fatal(err)
		}
		batch := idx.NewBatch()
		for _, d := range docs {
			batch.Index(d.ID, d.Fields)
			if batch.Size() >= BatchDocs {
				if err := idx.Batch(batch); err != nil {
					b.Fatal(err)
				}
				batch.Reset()
			}
		}
		if err := idx.Batch(batch); err != nil {
			b.Fatal(err)
		}
		before := dirSize(b, dir)
		if err := compact(ctx, &Shard{idx: idx}); err != nil {
			b.Fatal(err)
		}
		idx.Close()
		after := dirSize(b, dir)
		b.Logf("%-24s %7.1f MB (%.3f of the text), merged %7.1f MB (%.3f)", v.name,
			float64(before)/1e6, float64(before)/float64(textBytes), float64(after)/1e6, float64(after)/float64(textBytes))
	}
}
