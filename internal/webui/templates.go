package webui

import (
	"fmt"
	"github.com/webtable/webtable/internal/jsonshape"
	"html/template"
	"io/fs"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// views are the templates of the pages; each is parsed with layout.html.
var views = []string{"overview", "domain", "page", "diff", "failures", "tablets", "search", "crawl", "error"}

// funcs are the helpers the templates use. None of them returns trusted
// HTML: html/template escapes every value from the store.
var funcs = template.FuncMap{
	"fmtTime": func(t time.Time) string { return t.UTC().Format(timeLayout) },
	"usTime":  func(us int64) time.Time { return time.UnixMicro(us) },
	"fmtTS":   func(ts interface{ Time() time.Time }) string { return ts.Time().UTC().Format(timeLayout) },
	"ts":      func(ts interface{ Time() time.Time }) int64 { return ts.Time().UnixMicro() },
	"size":    func(n any) string { return jsonshape.Size(toInt64(n)) },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		return s
	},
	"state": func(s crawlstore.State) string {
		if s == crawlstore.StateNone {
			return "only linked to"
		}
		return s.String()
	},
	"gcText": gcText,
	"inc":    func(i int) int { return i + 1 },
	"opClass": func(k byte) string {
		switch k {
		case '-':
			return "del"
		case '+':
			return "ins"
		}
		return "same"
	},
}

// gcText explains a GC policy for people who never saw BigTable's
// notation: "versions() > 3" keeps 3 versions.
func gcText(p string) string {
	var n int
	if _, err := fmt.Sscanf(p, "versions() > %d", &n); err == nil && fmt.Sprintf("versions() > %d", n) == p {
		if n == 1 {
			return "keep the newest version"
		}
		return fmt.Sprintf("keep the %d newest versions", n)
	}
	if p == "" {
		return "keep everything"
	}
	return p
}

func toInt64(n any) int64 {
	switch v := n.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	}
	return 0
}

// parseTemplates parses each view with the layout (which also holds the
// pieces that several views share).
func parseTemplates() (map[string]*template.Template, error) {
	layout, err := fs.ReadFile(assets, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("webui: %w", err)
	}
	out := map[string]*template.Template{}
	for _, v := range views {
		body, err := fs.ReadFile(assets, "templates/"+v+".html")
		if err != nil {
			return nil, fmt.Errorf("webui: %w", err)
		}
		t := template.New(v).Funcs(funcs)
		for _, src := range []string{string(layout), string(body)} {
			if _, err := t.Parse(src); err != nil {
				return nil, fmt.Errorf("webui: template %s: %w", v, err)
			}
		}
		out[v] = t
	}
	return out, nil
}
