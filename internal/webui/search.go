package webui

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/webtable"
)

// SearchQuery is what the search box asks [Options.Search] for.
type SearchQuery struct {
	Q     string             // the query, as query search reads it
	Site  string             // a host or domain; "" any
	At    webtable.Timestamp // versions valid then; 0 the newest
	Limit int
}

// ErrBadSearch marks an error of [Options.Search] that is the query's
// fault (it cannot be parsed): the page answers 400 with its message.
var ErrBadSearch = errors.New("webui: bad search")

// searchLimit is how many hits a results page shows.
const searchLimit = 20

// searchData is what the search page shows.
type searchData struct {
	Q, Site, At string
	Enabled     bool   // a search index is there to ask
	Err         string // why the query cannot be run
	Asked       bool
	Result      jsonshape.SearchResult
	Hits        []searchHit
}

// searchHit is a hit with its snippet cut into marked and plain pieces.
type searchHit struct {
	jsonshape.SearchHit
	Pieces []snippetPiece
}

type snippetPiece struct {
	Text string
	Mark bool
}

// pieces cuts a snippet at its marks.
func pieces(h jsonshape.SearchHit) []snippetPiece {
	var out []snippetPiece
	at := 0
	if h.CutBefore {
		out = append(out, snippetPiece{Text: "…"})
	}
	for _, m := range h.Marks {
		if m[0] < at || m[1] > len(h.Snippet) || m[0] > m[1] {
			continue
		}
		out = append(out, snippetPiece{Text: h.Snippet[at:m[0]]}, snippetPiece{Text: h.Snippet[m[0]:m[1]], Mark: true})
		at = m[1]
	}
	out = append(out, snippetPiece{Text: h.Snippet[at:]})
	if h.CutAfter {
		out = append(out, snippetPiece{Text: "…"})
	}
	return out
}

// parseWhen reads the at= of the search form: microseconds, RFC 3339, or
// a date (its end, UTC).
func parseWhen(s string) (webtable.Timestamp, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return webtable.Timestamp(n), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return webtable.TimestampOf(t), nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return webtable.TimestampOf(d.Add(24*time.Hour - time.Microsecond)), nil
	}
	return 0, badRequest("at=%q: want a date (2026-01-02), a time (2026-01-02T15:04:05Z) or microseconds since 1970", s)
}

func (ui *UI) search(r *http.Request) (result, error) {
	q := r.URL.Query()
	d := searchData{Q: q.Get("q"), Site: q.Get("site"), At: q.Get("at"), Enabled: ui.opts.Search != nil}
	res := result{page: "search", title: "search", data: &d}
	if d.Q == "" {
		res.json = jsonshape.SearchResult{Hits: []jsonshape.SearchHit{}}
		return res, nil
	}
	if ui.opts.Search == nil {
		return result{}, notFound("this table has no search index: build one with: index --db DB search")
	}
	at, err := parseWhen(d.At)
	if err != nil {
		return result{}, err
	}
	sr, err := ui.opts.Search(r.Context(), SearchQuery{Q: d.Q, Site: d.Site, At: at, Limit: searchLimit})
	if errors.Is(err, ErrBadSearch) {
		d.Err = strings.TrimPrefix(err.Error(), ErrBadSearch.Error()+": ")
		// NB: the page is the form again with the message (200); JSON
		// answers 400, as every view's bad request does.
		if wantsJSON(r) {
			return result{}, badRequest("%s", d.Err)
		}
		return res, nil
	}
	if err != nil {
		return result{}, err
	}
	d.Asked, d.Result = true, sr
	for _, h := range sr.Hits {
		d.Hits = append(d.Hits, searchHit{SearchHit: h, Pieces: pieces(h)})
	}
	res.title = d.Q + " · search"
	res.json = sr
	return res, nil
}

// Searcher is the form of [Options.Search].
type Searcher = func(ctx context.Context, q SearchQuery) (jsonshape.SearchResult, error)
