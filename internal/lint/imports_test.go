package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/webtable/webtable"

// rule states what one package of this module may depend on. Internal
// dependencies are checked over the whole dependency graph (go list -deps), so
// a forbidden arrow cannot sneak in through an intermediate package.
type rule struct {
	// internal lists the module packages (relative to the module root) the
	// package may depend on, directly or not.
	internal []string
	// forbidden lists import-path prefixes that must not appear anywhere in
	// the package's dependencies.
	forbidden []string
	// forbiddenDirect lists import paths the package itself must not import
	// (standard-library packages that third-party dependencies may use).
	forbiddenDirect []string
}

var (
	storage = []string{"github.com/dgraph-io/badger", "cloud.google.com/go/bigtable"}
	// cloud is the Cloud Bigtable client and gRPC: only the adapter
	// (bigtable/cloud) and the programs may link them, so that code that
	// only uses the embedded store stays free of them.
	cloud    = []string{"cloud.google.com/go/bigtable", "google.golang.org/grpc"}
	crawling = []string{"github.com/gocolly/colly", "github.com/temoto/robotstxt"}
	// browser is the Chrome DevTools client: only render (and the
	// programs through it) links it, so the crawler builds without it.
	browser  = []string{"github.com/chromedp"}
	terminal = []string{"github.com/schollz/progressbar"}
	// prometheus is linked by internal/metrics and the crawl program only.
	prometheus = []string{"github.com/prometheus"}
)

// rules is the layout of CONTRIBUTING.md:
//
//	            crawler --> crawlstore <-- webtable       crawlstore --> urlkey (only)
//	cmd/crawl --> crawler --> urlkey          crawler --> colly/v2, sitemap
//	    \-------> render --> crawler, chromedp (pages in headless Chromium)
//	    |                 \-> extract --> x/net/html (links, text; no colly)
//	    |     \-> seeds
//	    \-------> webtable --> bigtable --> badger/v4
//	    \-------> shardrun, warcimport --> crawler, webtable (and archive)
//	cmd/query --> webtable, urlkey            internal/demoweb <-- cmd/crawl, tests
//	    \-------> internal/webui --> webtable, urlkey, extract (query serve)
//	cmd/crawl, cmd/query --> archive --> gowarc (WARC files; no storage, no crawling)
//	cmd/index --> jobs (runner), jobs/text, jobs/rank, jobs/dups --> webtable, extract
//
// plus internal/stores, which both programs use to open the store their
// --db flag names (a directory, or Cloud Bigtable through bigtable/cloud).
// The programs link bigtable (and its gRPC server) only through those two:
// they never import it (their tests may, to inject store faults).
var rules = map[string]rule{
	"urlkey": {
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "os"},
	},
	"bigtable": {
		forbidden:       concat(cloud, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "golang.org/x/net/html"},
	},
	"bigtable/cloud": {
		internal:        []string{"bigtable"},
		forbidden:       concat(crawling, terminal),
		forbiddenDirect: []string{"github.com/dgraph-io/badger/v4", "flag"},
	},
	// The proto translation and the gRPC server over the embedded store:
	// they speak Cloud Bigtable's protocol (bigtablepb, adminpb, gRPC)
	// but never link its client library.
	"bigtable/internal/wire": {
		internal:        []string{"bigtable"},
		forbidden:       concat(crawling, terminal),
		forbiddenDirect: []string{"cloud.google.com/go/bigtable", "github.com/dgraph-io/badger/v4", "flag"},
	},
	"bigtable/server": {
		internal:        []string{"bigtable"},
		forbidden:       concat(crawling, terminal),
		forbiddenDirect: []string{"cloud.google.com/go/bigtable", "github.com/dgraph-io/badger/v4", "flag", "net/http"},
	},
	"bigtable/bigtabletest": {
		internal:  []string{"bigtable"},
		forbidden: concat(crawling, terminal),
	},
	// The boundary between the crawler and the store, as
	// database/sql/driver sits between database/sql and the drivers: both
	// import it, it imports neither.
	"crawlstore": {
		internal:        []string{"urlkey"},
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "os"},
	},
	"webtable": {
		internal:        []string{"crawlstore", "bigtable", "urlkey"},
		forbidden:       concat(cloud, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "golang.org/x/net/html"},
	},
	"extract": {
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "os"},
	},
	"crawler": {
		internal:        []string{"crawlstore", "urlkey", "extract", "sitemap"},
		forbidden:       concat(storage, terminal, prometheus, browser),
		forbiddenDirect: []string{"flag"},
	},
	// Rendering pages in headless Chromium for the crawler: it implements
	// crawler.Renderer and knows no storage.
	"render": {
		internal:        []string{"crawler", "crawlstore", "urlkey", "extract", "sitemap"},
		forbidden:       concat(storage, terminal),
		forbiddenDirect: []string{"flag"},
	},
	// The generated single-page-application site of the render tests.
	"internal/spaweb": {
		forbidden: concat(storage, crawling, terminal, browser),
	},
	// Sitemap files (issue 35): a parser, no I/O of its own.
	"sitemap": {
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "os"},
	},
	"archive": {
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"flag"},
	},
	"seeds": {
		internal:        []string{"urlkey"},
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag"},
	},
	"internal/keyspace": {
		forbidden:       concat(storage, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag", "os"},
	},
	"internal/demoweb": {
		forbidden: concat(storage, crawling, terminal),
	},
	"internal/webgen": {
		forbidden: concat(storage, crawling, terminal),
	},
	// The test web of mixed schemes and unreachable origins: its oracle
	// is computed from its own description, never from the code it tests.
	"internal/realweb": {
		forbidden: concat(storage, crawling, terminal),
	},
	"internal/emulator": {
		forbidden: concat(crawling, terminal, []string{"github.com/dgraph-io/badger"}),
	},
	"internal/stores": {
		internal:  []string{"webtable", "crawlstore", "bigtable", "urlkey"},
		forbidden: concat(crawling, terminal),
	},
	// The check that a program's generated CLI reference is current
	// (its tests only): it needs nothing of the module.
	"internal/clidoc": {
		internal:  []string{},
		forbidden: concat(storage, cloud, crawling, terminal),
	},
	// Prometheus metrics of a crawl (issue 35): fed by the crawler's
	// statistics and hooks, so that crawler itself links no Prometheus.
	"internal/metrics": {
		internal:        []string{"crawler", "crawlstore", "urlkey", "extract", "sitemap"},
		forbidden:       concat(storage, cloud, terminal),
		forbiddenDirect: []string{"flag"},
	},
	// A simulated web for recrawl policies (issue 35): it runs the
	// crawler's scheduling policy, nothing of its fetching or storage.
	"internal/freshsim": {
		internal:        []string{"crawler", "crawlstore", "urlkey", "extract", "sitemap"},
		forbidden:       concat(storage, cloud, terminal, prometheus),
		forbiddenDirect: []string{"flag", "net/http"},
	},
	// The Go memory limit a crawl sets, from its cgroup's.
	"internal/memlimit": {
		forbidden:       concat(storage, cloud, crawling, terminal),
		forbiddenDirect: []string{"net/http", "flag"},
	},
	// The progress bar of the programs on a terminal (crawl, index).
	"internal/termbar": {
		internal:        []string{},
		forbidden:       concat(storage, cloud, crawling),
		forbiddenDirect: []string{"net/http", "flag"},
	},
	// The browser that the tests needing chromium find (their helper
	// only): it needs nothing of the module.
	"internal/chromiumtest": {
		internal:        []string{},
		forbidden:       concat(storage, cloud, crawling, terminal, prometheus, browser),
		forbiddenDirect: []string{"net/http", "flag"},
	},
	// The programs' flag values: sizes, shards, CA files.
	"internal/flagvalue": {
		internal:        []string{},
		forbidden:       concat(storage, cloud, crawling, terminal),
		forbiddenDirect: []string{"net/http"},
	},
	// A crawl's figures written for people (crawl's progress and
	// summary): its progress on a terminal goes through internal/termbar.
	"internal/crawlreport": {
		internal:        []string{"crawler", "crawlstore", "urlkey", "extract", "sitemap", "internal/termbar"},
		forbidden:       concat(storage, cloud),
		forbiddenDirect: []string{"net/http", "flag"},
	},
	// One shard of a crawl split between processes (crawl --shard): the
	// crawler over the WebTable, as the program runs it; like the
	// programs it speaks webtable, never bigtable itself; a shard ends
	// early as a crawl does (crawlrun.Error).
	"shardrun": {
		internal:        []string{"crawler", "crawlrun", "crawlstore", "extract", "webtable", "bigtable", "urlkey", "sitemap"},
		forbidden:       concat(cloud, terminal),
		forbiddenDirect: []string{"flag", "github.com/dgraph-io/badger/v4", module + "/bigtable"},
	},
	// One crawl of a single process into the WebTable (crawl without
	// --shard): the crawler over the WebTable, as shardrun is for shards.
	"crawlrun": {
		internal:        []string{"crawler", "crawlstore", "extract", "webtable", "bigtable", "urlkey", "sitemap"},
		forbidden:       concat(cloud, terminal),
		forbiddenDirect: []string{"flag", "github.com/dgraph-io/badger/v4", module + "/bigtable"},
	},
	// WARC files into the WebTable by the crawler's rules (crawl
	// --from-warc): archive reads them, webtable stores them; an import
	// ends early as a crawl does (crawlrun.Error).
	"warcimport": {
		internal:        []string{"archive", "crawler", "crawlrun", "crawlstore", "extract", "webtable", "bigtable", "urlkey", "sitemap"},
		forbidden:       concat(cloud, terminal),
		forbiddenDirect: []string{"flag", "github.com/dgraph-io/badger/v4", module + "/bigtable"},
	},
	// The programs link the store through webtable and internal/stores,
	// but speak webtable's vocabulary: they import neither store package.
	"cmd/crawl": {
		internal:        []string{"crawler", "render", "shardrun", "crawlrun", "warcimport", "extract", "seeds", "webtable", "crawlstore", "bigtable", "urlkey", "archive", "internal/demoweb", "internal/stores", "internal/memlimit", "sitemap", "internal/metrics", "internal/termbar", "internal/crawlreport", "internal/flagvalue"},
		forbiddenDirect: programsMustNotImport,
	},
	// The JSON shapes query prints and query serve answers with.
	"internal/jsonshape": {
		internal:  []string{"webtable", "crawlstore", "bigtable", "urlkey"},
		forbidden: concat(cloud, crawling, terminal),
	},
	"internal/webui": {
		internal:        []string{"webtable", "crawlstore", "bigtable", "urlkey", "extract", "internal/jsonshape"},
		forbidden:       concat(cloud, crawling, terminal),
		forbiddenDirect: []string{"github.com/dgraph-io/badger/v4", "github.com/webtable/webtable/bigtable", "flag"},
	},
	// The indexing jobs (issue 33): the runner and each job read and
	// write through webtable, never the store itself.
	"jobs": {
		internal:        []string{"webtable", "crawlstore", "bigtable", "urlkey", "extract"},
		forbidden:       concat(cloud, crawling, terminal),
		forbiddenDirect: []string{"github.com/dgraph-io/badger/v4", module + "/bigtable", "flag", "net/http"},
	},
	// jobstest builds stores for the jobs' tests, so it may open one.
	"jobs/jobstest": {
		internal:        []string{"webtable", "crawlstore", "bigtable", "urlkey", "jobs"},
		forbidden:       concat(cloud, crawling, terminal),
		forbiddenDirect: []string{"flag", "net/http"},
	},
	"cmd/index": {
		internal:        []string{"jobs", "webtable", "crawlstore", "bigtable", "urlkey", "extract", "internal/stores", "internal/memlimit", "internal/termbar"},
		forbidden:       crawling,
		forbiddenDirect: programsMustNotImport,
	},
	"cmd/query": {
		internal:        []string{"webtable", "crawlstore", "bigtable", "urlkey", "extract", "archive", "internal/stores", "internal/webui", "internal/jsonshape", "jobs", "internal/flagvalue"},
		forbidden:       concat(crawling, terminal),
		forbiddenDirect: programsMustNotImport,
	},
}

// anywhere lists the module packages that every package may depend on: leaf
// packages that themselves depend on nothing of the module. internal/keyspace
// holds the row key limit and prefix successor that urlkey and bigtable, which
// must not know each other, both need.
var anywhere = []string{"internal/keyspace"}

// programsMustNotImport are the store packages the programs reach only
// through webtable and internal/stores: the store itself, the Cloud Bigtable
// adapter, and the gRPC server with its proto translation (internal/stores
// wires the server to a store and writes the address file that query reads).
var programsMustNotImport = []string{
	"github.com/dgraph-io/badger/v4",
	module + "/bigtable",
	module + "/bigtable/cloud",
	module + "/bigtable/server",
	module + "/bigtable/internal/wire",
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// goList runs go list -deps=false over the module, returning every package with
// its direct imports and its transitive dependencies.
func goList(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
		// NB: go test caches a passing result by the files the test
		// opens or stats; go list reads the sources in a child process,
		// so stat them here, or a cached pass would hide a new import.
		for _, f := range p.GoFiles {
			os.Stat(filepath.Join(p.Dir, f))
		}
	}
	os.Stat("../../go.mod")
	return pkgs
}

// ruleFor finds the rule of a package: its own, or that of the nearest listed
// ancestor (so bigtable/difftest is held to bigtable's internal arrows unless
// listed itself).
func ruleFor(rel string) (string, rule, bool) {
	for name := rel; name != "."; {
		if r, ok := rules[name]; ok {
			return name, r, true
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			break
		}
		name = name[:i]
	}
	return "", rule{}, false
}

// violations lists every arrow in pkgs that the rules do not allow, one
// sentence each.
func violations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "" || strings.HasPrefix(rel, "internal/lint") {
			continue
		}
		name, r, ok := ruleFor(rel)
		if !ok {
			out = append(out, fmt.Sprintf("package %s has no import rule: add it to rules in internal/lint/imports_test.go, following CONTRIBUTING.md", p.ImportPath))
			continue
		}
		for _, dep := range p.Deps {
			if depRel, internal := strings.CutPrefix(dep, module+"/"); internal {
				if depRel == name || strings.HasPrefix(depRel, name+"/") || slices.Contains(anywhere, depRel) || slices.ContainsFunc(r.internal, func(a string) bool {
					return depRel == a || strings.HasPrefix(depRel, a+"/")
				}) {
					continue
				}
				out = append(out, fmt.Sprintf("%s depends on %s: CONTRIBUTING.md does not allow that arrow (allowed: %v)", rel, depRel, r.internal))
				continue
			}
			for _, f := range r.forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					out = append(out, fmt.Sprintf("%s depends on %s, which it must not know about", rel, dep))
				}
			}
		}
		for _, imp := range p.Imports {
			if slices.Contains(r.forbiddenDirect, imp) {
				out = append(out, fmt.Sprintf("%s imports %s directly, which it must not know about", rel, imp))
			}
		}
	}
	return out
}

func TestImportGraph(t *testing.T) {
	pkgs := goList(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages in the module")
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestViolationsDetected proves the checker fails on the arrows the layout
// forbids, so TestImportGraph passing means something.
func TestViolationsDetected(t *testing.T) {
	tests := []struct {
		name string
		pkg  listedPackage
		want string // substring of the single violation; "" for none
	}{
		{"bigtable may use badger", listedPackage{ImportPath: module + "/bigtable", Deps: []string{"github.com/dgraph-io/badger/v4"}}, ""},
		{"bigtable must not know urlkey", listedPackage{ImportPath: module + "/bigtable", Deps: []string{module + "/urlkey"}}, "bigtable depends on urlkey"},
		{"crawlstore must not know the crawler", listedPackage{ImportPath: module + "/crawlstore", Deps: []string{module + "/urlkey", module + "/crawler"}}, "crawlstore depends on crawler"},
		{"crawlstore must not know the store", listedPackage{ImportPath: module + "/crawlstore", Deps: []string{module + "/webtable"}}, "crawlstore depends on webtable"},
		{"webtable must not know the crawler", listedPackage{ImportPath: module + "/webtable", Deps: []string{module + "/crawlstore", module + "/crawler"}}, "webtable depends on crawler"},
		{"shardrun speaks webtable, not bigtable", listedPackage{ImportPath: module + "/shardrun", Imports: []string{module + "/bigtable"}}, "shardrun imports " + module + "/bigtable directly"},
		{"shardrun must not know terminals", listedPackage{ImportPath: module + "/shardrun", Deps: []string{"github.com/schollz/progressbar/v3"}}, "shardrun depends on github.com/schollz/progressbar/v3"},
		{"crawler must not know storage", listedPackage{ImportPath: module + "/crawler", Deps: []string{module + "/urlkey", module + "/webtable"}}, "crawler depends on webtable"},
		{"crawler must not reach badger indirectly", listedPackage{ImportPath: module + "/crawler", Deps: []string{"github.com/dgraph-io/badger/v4"}}, "crawler depends on github.com/dgraph-io/badger/v4"},
		{"urlkey must not do HTTP", listedPackage{ImportPath: module + "/urlkey", Imports: []string{"net/http"}}, "urlkey imports net/http directly"},
		{"webtable must not know colly", listedPackage{ImportPath: module + "/webtable", Deps: []string{"github.com/gocolly/colly/v2"}}, "webtable depends on github.com/gocolly/colly/v2"},
		{"query must not know the crawler", listedPackage{ImportPath: module + "/cmd/query", Deps: []string{module + "/crawler"}}, "cmd/query depends on crawler"},
		{"subpackage inherits its parent's rule", listedPackage{ImportPath: module + "/bigtable/difftest", Deps: []string{module + "/bigtable", "cloud.google.com/go/bigtable"}}, "bigtable/difftest depends on cloud.google.com/go/bigtable"},
		{"bigtable must stay free of gRPC", listedPackage{ImportPath: module + "/bigtable", Deps: []string{"google.golang.org/grpc"}}, "bigtable depends on google.golang.org/grpc"},
		{"the cloud adapter may use the client", listedPackage{ImportPath: module + "/bigtable/cloud", Deps: []string{module + "/bigtable", module + "/bigtable/internal/spec", "cloud.google.com/go/bigtable", "google.golang.org/grpc"}}, ""},
		{"programs may link badger through webtable", listedPackage{ImportPath: module + "/cmd/query", Deps: []string{module + "/webtable", "github.com/dgraph-io/badger/v4"}}, ""},
		{"programs must not import badger themselves", listedPackage{ImportPath: module + "/cmd/crawl", Imports: []string{"github.com/dgraph-io/badger/v4"}}, "cmd/crawl imports github.com/dgraph-io/badger/v4 directly"},
		{"the server may speak the protocol", listedPackage{ImportPath: module + "/bigtable/server", Deps: []string{module + "/bigtable", module + "/bigtable/internal/wire", "cloud.google.com/go/bigtable/apiv2/bigtablepb", "google.golang.org/grpc"}}, ""},
		{"the server must not link the Cloud client", listedPackage{ImportPath: module + "/bigtable/server", Imports: []string{"cloud.google.com/go/bigtable"}}, "bigtable/server imports cloud.google.com/go/bigtable directly"},
		{"programs speak webtable, not bigtable", listedPackage{ImportPath: module + "/cmd/query", Imports: []string{module + "/bigtable"}}, "cmd/query imports " + module + "/bigtable directly"},
		{"programs open Cloud Bigtable through internal/stores", listedPackage{ImportPath: module + "/cmd/crawl", Imports: []string{module + "/bigtable/cloud"}}, "cmd/crawl imports " + module + "/bigtable/cloud directly"},
		{"programs may link the server through internal/stores", listedPackage{ImportPath: module + "/cmd/crawl", Imports: []string{module + "/internal/stores"}, Deps: []string{module + "/internal/stores", module + "/bigtable/server", module + "/bigtable/internal/wire"}}, ""},
		{"programs serve the store through internal/stores", listedPackage{ImportPath: module + "/cmd/crawl", Imports: []string{module + "/bigtable/server"}}, "cmd/crawl imports " + module + "/bigtable/server directly"},
		{"programs never speak the protocol themselves", listedPackage{ImportPath: module + "/cmd/query", Imports: []string{module + "/bigtable/internal/wire"}}, "cmd/query imports " + module + "/bigtable/internal/wire directly"},
		{"every package may use internal/keyspace", listedPackage{ImportPath: module + "/urlkey", Deps: []string{module + "/internal/keyspace"}}, ""},
		{"internal/keyspace must stay a leaf", listedPackage{ImportPath: module + "/internal/keyspace", Deps: []string{module + "/urlkey"}}, "internal/keyspace depends on urlkey"},
		{"unknown package needs a rule", listedPackage{ImportPath: module + "/newpkg"}, "has no import rule"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := violations([]listedPackage{tc.pkg})
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("violations = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("violations = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestRulesCoverLayout keeps the rule table honest: every package named in the
// layout has a rule, and a rule's internal arrows only name known packages.
func TestRulesCoverLayout(t *testing.T) {
	for name, r := range rules {
		for _, a := range r.internal {
			if _, ok := rules[a]; !ok {
				t.Errorf("rule %s allows %s, which has no rule of its own", name, a)
			}
		}
	}
}
