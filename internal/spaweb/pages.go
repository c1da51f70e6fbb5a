package spaweb

import (
	"strconv"
	"strings"
)

// DownloadPath is the file the page /download downloads: served as an
// attachment, it must never reach the disk.
const DownloadPath = "/files/report.bin"

// Specials are the misbehaving pages, each linked from /.
var Specials = []string{"/timer", "/scroll", "/loop", "/popup", "/away", "/errors", "/download"}

// Found are the pages only a render finds, besides the tree pages: what
// the specials link to (the loop's link is made before it loops, but its
// document can never be read).
var Found = []string{"/timer/found", "/scroll/found", "/popup/found", "/away/found", "/errors/found", "/download/found"}

// Rendered returns the URLs a crawl of depth at least depth that renders
// every page fetches: /, the tree pages within depth, the specials and the
// pages they link to (never /away/gone, /popup/window, /loop/found or
// anything of Offsite).
func (s *Site) Rendered(depth int) []string {
	urls := []string{s.URL + "/"}
	for i := range s.Pages {
		if treeDepth(i)+1 <= depth {
			urls = append(urls, s.URL+"/p/"+strconv.Itoa(i))
		}
	}
	for _, p := range Specials {
		urls = append(urls, s.URL+p)
	}
	if depth >= 2 {
		for _, p := range Found {
			urls = append(urls, s.URL+p)
		}
	}
	return urls
}

// treeDepth is the depth of tree page i below /p/0 (0 for /p/0).
func treeDepth(i int) int {
	d := 0
	for i > 0 {
		i = (i - 1) / 2
		d++
	}
	return d
}

// known reports whether path is a page of the site.
func (s *Site) known(p string) bool {
	if p == "/" || p == "/away/gone" || p == "/popup/window" || p == "/loop/found" || p == "/alloc" {
		return true
	}
	for _, q := range append(Specials[:len(Specials):len(Specials)], Found...) {
		if p == q {
			return true
		}
	}
	if n, ok := strings.CutPrefix(p, "/p/"); ok {
		i, err := strconv.Atoi(n)
		return err == nil && i >= 0 && i < s.Pages && strconv.Itoa(i) == n
	}
	return false
}

// pageData is what /api/page answers for a page: its title, text and links.
type pageData struct {
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Links []string `json:"links"`
	Kind  string   `json:"kind"`
}

// pageData is the data of the page at path (no links for a path the
// site does not have).
func (s *Site) pageData(path string) pageData {
	d := pageData{Title: "Page " + path, Text: "Text of " + path + ", built by a script.", Kind: "plain", Links: []string{}}
	switch {
	case path == "/":
		if s.Pages > 0 {
			d.Links = append(d.Links, "/p/0")
		}
		d.Links = append(d.Links, Specials...)
	case strings.HasPrefix(path, "/p/"):
		i, _ := strconv.Atoi(strings.TrimPrefix(path, "/p/"))
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < s.Pages {
				d.Links = append(d.Links, "/p/"+strconv.Itoa(c))
			}
		}
	case path == "/alloc":
		d.Kind = "alloc"
	default:
		for _, sp := range Specials {
			if path == sp {
				d.Kind = strings.TrimPrefix(sp, "/")
				d.Links = []string{sp + "/found"}
			}
		}
	}
	return d
}

// shellHTML is every page as served: no text, no links.
const shellHTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>SPA</title>
<script src="/app.js"></script>
<script src="%s/track.js" async></script>
</head><body><div id="app">Loading…</div></body></html>
`

// appJS builds each page from /api/page after load.
const appJS = `
fetch("/private/data.json").catch(() => {});
window.addEventListener("load", async () => {
  const r = await fetch("/api/page?path=" + encodeURIComponent(location.pathname));
  const d = await r.json();
  const app = document.getElementById("app");
  const link = (href) => '<li><a href="' + href + '">' + href + '</a></li>';
  const list = (links) => '<ul>' + links.map(link).join("") + '</ul>';
  document.title = d.title;
  switch (d.kind) {
  case "timer":
    app.innerHTML = "<p>" + d.text + "</p>";
    setTimeout(() => { app.insertAdjacentHTML("beforeend", list(d.links)); }, 300);
    break;
  case "scroll":
    app.innerHTML = list(d.links);
    let n = 0;
    const more = () => { app.insertAdjacentHTML("beforeend", "<p>item " + (n++) + "</p>"); setTimeout(more, 50); };
    more();
    break;
  case "loop":
    app.innerHTML = list(d.links);
    setTimeout(() => { for (;;) {} }, 0);
    break;
  case "popup":
    app.innerHTML = "<p>" + d.text + "</p>" + list(d.links);
    window.open("/popup/window");
    window.open("/popup/window", "_blank");
    break;
  case "away":
    app.innerHTML = list(d.links);
    location.href = "/away/gone";
    break;
  case "alloc":
    const hog = [];
    for (;;) hog.push(new Array(1 << 20).fill(hog.length));
  case "download":
    app.innerHTML = list(d.links);
    const a = document.createElement("a");
    a.href = "/files/report.bin";
    a.download = "report.bin";
    document.body.appendChild(a);
    a.click();
    a.remove(); // the download is the test, not a link to follow
    break;
  case "errors":
    for (let i = 0; i < 5000; i++) console.error("error " + i);
    app.innerHTML = list(d.links);
    break;
  default:
    app.innerHTML = "<h1>" + d.title + "</h1><p>" + d.text + "</p>" + list(d.links);
  }
});
`
