package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/internal/webui"
	"github.com/webtable/webtable/jobs/search"
	"github.com/webtable/webtable/webtable"
)

const searchHelp = `query search QUERY [flags]

Searches the text of the stored pages (the index "index search" builds):
the best pages first, each with its URL, title, a snippet with the matched
words in [brackets], its score and the time of the version shown.

The query:
  web crawler          pages with both words (in the title, text, the
                       anchor texts of links to the page, or the URL)
  "web crawler"        the exact phrase
  crawler -spider      crawler but not spider (also -"a phrase")
  crawler site:cnn.com on cnn.com or a host under it (www.cnn.com)
  "to be or not to be" a phrase of common words alone ("the", "or"), which
                       the index leaves out: looked for in the text of the
                       pages the rest of the query finds (20,000 at most)

Scoring: BM25 with the title weighted 3, anchor texts 2, URL 1.5, text 1,
times a PageRank prior (1 + 0.25 ln(1 + N x rank)); one hit per cluster of
duplicates (index dups), at most 2 per host unless --site or site: is given.

Flags:
  --site DOMAIN   only pages on this host or domain (like site:)
  --lang L        only pages in language L (ISO 639-1: en, de, fr...)
  --at TIME       search the web as it was then: the versions stored then
                  (what query get --at TIME shows); microseconds since
                  1970, RFC 3339, or a date such as 2026-01-02 (its end, UTC)
  --limit N       at most N hits (default 10)
  --json          one JSON object: {"query","matches","hits":[{"rank","url",
                  "row","title","snippet","marks","score","time",...}],"note"}
  --index DIR     the index (default DB/search)
  --db DIR        the store (default ./webtable.db)

Examples:
  index --db webtable-demo.db                 build the index (all jobs)
  query --db webtable-demo.db search cnn
  query --db webtable-demo.db search '"breaking news" -sports' --limit 5
  query --db webtable-demo.db search news --at 2026-01-02 --json

Exit status: 0 hits found, 1 none, 2 a bad query or no index.
`

// searchFlags are query search's flags.
type searchFlags struct {
	db, site, lang, at, index string
	limit                     int
	asJSON                    bool
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f searchFlags
	fs := newFlagSet("search", &f.db)
	fs.StringVar(&f.site, "site", "", "")
	fs.StringVar(&f.lang, "lang", "", "")
	fs.StringVar(&f.at, "at", "", "")
	fs.StringVar(&f.index, "index", "", "")
	fs.IntVar(&f.limit, "limit", 10, "")
	fs.BoolVar(&f.asJSON, "json", false, "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing QUERY (see query search --help)")
	}
	if f.limit < 1 || f.limit > 1000 {
		return usagef("--limit %d: want 1 to 1000", f.limit)
	}
	req := search.Request{Query: strings.Join(pos, " "), Limit: f.limit, Filters: search.Filters{Lang: f.lang}}
	if f.site != "" {
		req.Sites = []string{f.site}
	}
	if f.at != "" {
		if req.At, err = parseAt(f.at); err != nil {
			return err
		}
	}
	if _, err := search.Parse(req.Query); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "search: "))
	}
	w, err := openStore(ctx, f.db)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := runSearchIn(ctx, w, searchIndexDir(f.db, f.index), req)
	var se *search.SyntaxError
	if errors.As(err, &se) || errors.Is(err, search.ErrNoIndex) || errors.Is(err, search.ErrOtherForm) || errors.Is(err, search.ErrBusy) {
		return usagef("%s", strings.TrimPrefix(err.Error(), "search: "))
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printHits(stdout, res)
	}
	if len(res.Hits) == 0 {
		return fmt.Errorf("%w: no page matches %s", errNotFound, req.Query)
	}
	return nil
}

// searchIndexDir is where the index of db is: --index, else DB/search.
func searchIndexDir(db, index string) string {
	if index != "" || stores.IsCloud(db) {
		return index
	}
	return filepath.Join(db, search.DirName)
}

// runSearchIn opens the index, searches and closes it again (an open
// index keeps index --follow from writing it), and shapes the result.
func runSearchIn(ctx context.Context, w *webtable.WebTable, dir string, req search.Request) (jsonshape.SearchResult, error) {
	if dir == "" {
		return jsonshape.SearchResult{}, fmt.Errorf("%w: a bigtable:// store keeps none; name its directory with --index DIR", search.ErrNoIndex)
	}
	r, err := search.OpenReader(dir)
	if err != nil {
		return jsonshape.SearchResult{}, err
	}
	defer r.Close()
	res, err := r.Search(ctx, w, req)
	if err != nil {
		return jsonshape.SearchResult{}, err
	}
	return searchShape(req, res), nil
}

// searchShape is res in its JSON shape.
func searchShape(req search.Request, res *search.Result) jsonshape.SearchResult {
	out := jsonshape.SearchResult{Query: req.Query, Lang: req.Lang, At: int64(req.At),
		Matches: res.Matches, Hits: []jsonshape.SearchHit{}, TookMS: float64(res.Took.Microseconds()) / 1000, Note: res.Note}
	if len(req.Sites) > 0 {
		out.Site = req.Sites[0]
	}
	for _, h := range res.Hits {
		marks := h.Snippet.Marks
		if marks == nil {
			marks = [][2]int{}
		}
		out.Hits = append(out.Hits, jsonshape.SearchHit{
			Rank: h.Rank, URL: h.URL, Row: h.Key, Title: h.Title,
			Snippet: h.Snippet.Text, Marks: marks, CutBefore: h.Snippet.Cut[0], CutAfter: h.Snippet.Cut[1],
			Score: h.Score, BM25: h.BM25, Timestamp: int64(h.Time), Time: formatTime(h.Time),
			Lang: h.Lang, Capped: h.Capped, DupOf: h.DupOf,
		})
	}
	return out
}

// printHits writes the hits for people: rank, title, URL, snippet.
func printHits(w io.Writer, res jsonshape.SearchResult) {
	for _, h := range res.Hits {
		title := h.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(w, "%d. %s\n   %s\n", h.Rank, title, h.URL)
		sn := search.Snippet{Text: h.Snippet, Marks: h.Marks, Cut: [2]bool{h.CutBefore, h.CutAfter}}
		if s := sn.Marked("[", "]", nil); s != "" {
			fmt.Fprintf(w, "   %s\n", s)
		}
		extra := ""
		if h.Capped {
			extra = ", text capped at 64 KiB"
		}
		fmt.Fprintf(w, "   score %.3f, version of %s%s\n", h.Score, h.Time, extra)
	}
	fmt.Fprintf(w, "%d hits of %d matching versions, %s\n", len(res.Hits), res.Matches,
		(time.Duration(res.TookMS*1000) * time.Microsecond).Round(time.Millisecond/10))
	if res.Note != "" {
		fmt.Fprintf(w, "note: %s\n", res.Note)
	}
}

// searcher is the search box of query serve over the index in dir; nil
// when there is none. Each search opens the index and closes it again, so
// that index can update it between searches.
func searcher(w *webtable.WebTable, dir string) webui.Searcher {
	if dir == "" {
		return nil
	}
	return func(ctx context.Context, q webui.SearchQuery) (jsonshape.SearchResult, error) {
		req := search.Request{Query: q.Q, Limit: q.Limit, Filters: search.Filters{At: q.At}}
		if q.Site != "" {
			req.Sites = []string{q.Site}
		}
		res, err := runSearchIn(ctx, w, dir, req)
		var se *search.SyntaxError
		if errors.As(err, &se) || errors.Is(err, search.ErrNoIndex) {
			return res, fmt.Errorf("%w: %s", webui.ErrBadSearch, strings.TrimPrefix(err.Error(), "search: "))
		}
		return res, err
	}
}
