package jsonshape

// SearchHit is one hit of a search, as "query search --json" prints it
// and "query serve" answers /search with Accept: application/json.
type SearchHit struct {
	Rank  int    `json:"rank"`
	URL   string `json:"url"`
	Row   string `json:"row"`
	Title string `json:"title"`
	// Snippet is a piece of the version's visible text; Marks are the
	// matched words in it, as [start, end) byte offsets; CutBefore and
	// CutAfter say the text goes on.
	Snippet   string   `json:"snippet"`
	Marks     [][2]int `json:"marks"`
	CutBefore bool     `json:"cut_before,omitempty"`
	CutAfter  bool     `json:"cut_after,omitempty"`
	Score     float64  `json:"score"`
	BM25      float64  `json:"bm25"`
	Timestamp int64    `json:"timestamp"` // the version's, microseconds
	Time      string   `json:"time"`
	Lang      string   `json:"lang,omitempty"`
	Capped    bool     `json:"capped,omitempty"`
	DupOf     string   `json:"dup_of,omitempty"`
}

// SearchResult is a search: what was asked, and its hits.
type SearchResult struct {
	Query   string      `json:"query"`
	Site    string      `json:"site,omitempty"`
	Lang    string      `json:"lang,omitempty"`
	At      int64       `json:"at,omitempty"` // microseconds; 0: the newest versions
	Matches uint64      `json:"matches"`      // matching versions, before folding
	Hits    []SearchHit `json:"hits"`
	TookMS  float64     `json:"took_ms"`
	// Note says what the search could not do with the query's stop words
	// (common words such as "the", which the index leaves out).
	Note string `json:"note,omitempty"`
}
