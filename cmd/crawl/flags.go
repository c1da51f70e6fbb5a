package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/flagvalue"
	"github.com/webtable/webtable/internal/metrics"
	"github.com/webtable/webtable/shardrun"
	"github.com/webtable/webtable/webtable"
)

// Default store directories.
const (
	defaultDB     = "./webtable.db"
	defaultDemoDB = "./webtable-demo.db"
)

// options is the command line: one crawler.Config, mapped one-to-one from
// flags, plus what the command itself needs.
type options struct {
	cfg       crawler.Config
	db        string
	dbSet     bool // --db was given
	delaySet  bool // --delay was given
	seedsFile string
	seeds     []string // URLs given as arguments
	versions  int
	demo      bool
	warcs     []string // --from-warc files (and, with it, the arguments)
	deps      deps     // not a flag: set by runWith
	// serve is the address to serve the store on while crawling ("": do
	// not serve); allowRemote lets it be off loopback.
	serve       string
	allowRemote bool
	// metricsAddr is where --metrics serves Prometheus metrics ("": not
	// served); metrics is set by startMetrics, not a flag.
	metricsAddr string
	metrics     *metrics.Crawl
	// shardTimeout is how long a shard waits for a silent shard.
	shardTimeout time.Duration
	// render holds --render-tabs and --render-timeout (render.go).
	render renderFlags
	// crawlStore, when set, is the store crawlOnce crawls (a continuous
	// shard's, counting for its record); not a flag.
	crawlStore crawlstore.Store
}

// usageText is the head of --help, before the flags; docs/cli/crawl.md is
// generated from it (TestCLIDoc).
//
//go:embed usage.txt
var usageText string

// parseFlags reads the command line; --help is written to helpOut. Errors
// are usage errors (exit 2).
func parseFlags(args []string, helpOut io.Writer) (*options, error) {
	o := &options{cfg: crawler.DefaultConfig()}
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addOutputFlags(fs, o)
	addScopeFlags(fs, &o.cfg)
	addFetchFlags(fs, &o.cfg)
	addContinuousFlags(fs, &o.cfg)
	addRenderFlags(fs, o)

	positional, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(helpOut, usageText)
		fs.SetOutput(helpOut)
		fs.PrintDefaults()
	}
	if err != nil {
		return nil, err
	}
	o.seeds = positional
	if len(o.warcs) > 0 {
		o.warcs, o.seeds = append(o.warcs, positional...), nil
	}
	fs.Visit(func(f *flag.Flag) {
		o.dbSet = o.dbSet || f.Name == "db"
		o.delaySet = o.delaySet || f.Name == "delay"
	})
	switch {
	case len(o.warcs) > 0 && (o.demo || o.seedsFile != ""):
		return nil, fmt.Errorf("--from-warc reads pages from files: leave out --demo and --seeds")
	case len(o.warcs) > 0 && o.serve != "":
		return nil, fmt.Errorf("--from-warc builds the table and exits: serve it afterwards with crawl --serve ADDR --db DIR")
	case o.shardTimeout <= 0:
		return nil, fmt.Errorf("--shard-timeout %v: give a positive duration (e.g. 3m)", o.shardTimeout)
	case o.cfg.Continuous && (o.cfg.MinInterval <= 0 || o.cfg.MaxInterval < o.cfg.MinInterval):
		return nil, fmt.Errorf("--min-interval %v and --max-interval %v: want 0 < min <= max (e.g. 1h and 720h)", o.cfg.MinInterval, o.cfg.MaxInterval)
	case o.cfg.Continuous && len(o.warcs) > 0:
		return nil, fmt.Errorf("--continuous fetches pages again: leave out --from-warc")
	case o.versions < 1:
		return nil, fmt.Errorf("--versions %d: keep at least 1 version", o.versions)
	case o.demo && (o.seedsFile != "" || len(o.seeds) > 0):
		return nil, fmt.Errorf("--demo crawls its own sample web: leave out --seeds and seed URLs")
	case o.serve != "" && o.demo:
		return nil, fmt.Errorf("--serve serves a crawl's store: use it without --demo (crawl --db %s --serve ADDR serves the demo's store)", defaultDemoDB)
	case o.allowRemote && o.serve == "":
		return nil, fmt.Errorf("--allow-remote only matters with --serve ADDR")
	}
	if err := o.render.check(o); err != nil {
		return nil, err
	}
	if o.demo && !o.dbSet {
		o.db = defaultDemoDB
	}
	return o, nil
}

// addOutputFlags declares the flags of the store, the seeds and the run.
func addOutputFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.db, "db", defaultDB, "the store: a `DIR`ectory (created if absent) or bigtable://PROJECT/INSTANCE[/TABLE] for Cloud Bigtable")
	fs.StringVar(&o.seedsFile, "seeds", "", "read seed URLs from `FILE`, one per line")
	fs.IntVar(&o.versions, "versions", webtable.DefaultVersions, "keep `N` versions of each page's HTML")
	fs.BoolVar(&o.cfg.StoreAll, "store-all", false, "keep the bodies of non-HTML responses too")
	fs.IntVar(&o.cfg.SeenCache, "seen-cache", o.cfg.SeenCache, "remember `N` links per run as already known, to spare the store reading them again (0 = off; the store decides)")
	fs.Func("from-warc", "build the table from this WARC `FILE` instead of fetching (repeatable; further arguments are WARC files too)", func(s string) error {
		o.warcs = append(o.warcs, s)
		return nil
	})
	fs.BoolVar(&o.demo, "demo", false, "crawl a built-in sample web (www.cnn.com, cnnsi.com, my.look.ca on 127.0.0.1) 3 times into "+defaultDemoDB)
	fs.Var(flagvalue.Shard{I: &o.cfg.Shard, N: &o.cfg.Shards}, "shard", "crawl only the hosts of shard `I/N` (0 <= I < N) of a crawl split between N crawlers sharing one --db")
	fs.DurationVar(&o.shardTimeout, "shard-timeout", shardrun.DefaultTimeout, "with --shard: stop, exit status 3, when another shard has given no sign of life for `DUR`")
	fs.StringVar(&o.serve, "serve", "", "while crawling, serve the store on `ADDR` (e.g. 127.0.0.1:8086; port 0 picks one) over Cloud Bigtable's API, so that query, cbt and Bigtable clients (BIGTABLE_EMULATOR_HOST=ADDR) can read it; keep serving after the crawl until Ctrl-C")
	fs.StringVar(&o.metricsAddr, "metrics", "", "serve Prometheus metrics on `ADDR` at /metrics while crawling (e.g. 127.0.0.1:9464; port 0 picks one): fetches by status and error, bytes, latencies, frontier, hosts, memory")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "let --serve listen on an address other machines can reach (the protocol has no authentication: anyone who reaches it can read and change the store)")
}

// addScopeFlags declares the flags of which pages a crawl fetches.
func addScopeFlags(fs *flag.FlagSet, c *crawler.Config) {
	fs.IntVar(&c.Depth, "depth", c.Depth, "follow links at most `N` hops from a seed")
	fs.IntVar(&c.MaxPages, "max-pages", c.MaxPages, "stop after `N` successful fetches in this run; with --shard, in the whole crawl, all shards and restarts together (0 = no limit)")
	fs.Var(flagvalue.Domains{List: &c.AllowDomains}, "allow-domain", "crawl only this `D`omain and its subdomains (repeatable; default: each seed's registrable domain)")
	fs.IntVar(&c.MaxPagesPerHost, "max-pages-per-host", c.MaxPagesPerHost, "fetch at most `N` pages of one host, counting earlier runs of the same --db (0 = no limit)")
	fs.BoolVar(&c.AllowPrivate, "allow-private", false, "fetch from loopback, private-network and link-local addresses (127.0.0.1, 10.x, 192.168.x, 169.254.x, [::1]) even when no seed is one: by default a redirect or link to them is refused")
	fs.IntVar(&c.MaxLinks, "max-links", c.MaxLinks, "keep at most `N` links of a page, the first in the page (how many it had is recorded in fetch:record as links)")
	fs.Var(flagvalue.HTTPURLs{List: &c.Sitemaps, Example: "https://example.org/sitemap.xml"}, "sitemap", "also read the sitemap at this `URL` (repeatable; e.g. https://example.org/sitemap.xml, a sitemap index or .xml.gz too) and queue the pages it lists; the Sitemap lines of robots.txt are read anyway")
	fs.BoolVar(&c.NoSitemaps, "no-sitemaps", false, "read no sitemaps: neither --sitemap nor the Sitemap lines of robots.txt")
}

// addFetchFlags declares the flags of how pages are fetched, politely.
func addFetchFlags(fs *flag.FlagSet, c *crawler.Config) {
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "at most `N` fetches in flight overall")
	fs.IntVar(&c.PerHost, "per-host", c.PerHost, "at most `N` fetches in flight to one host when --delay is 0 (with a delay, one at a time)")
	fs.DurationVar(&c.Delay, "delay", c.Delay, "wait `DUR` from the end of one response from a host to the next request to it, so the host never sees two requests closer than DUR (a longer robots.txt Crawl-delay wins)")
	fs.Func("budget", "fetch at most `N/DUR` pages and sitemap files, e.g. 10000/1h: N in any DUR (default no limit)", func(s string) error {
		b, err := crawler.ParseBudget(s)
		c.Budget = b
		return err
	})
	fs.BoolVar(&c.IgnoreRobots, "ignore-robots", false, "do not read or obey robots.txt")
	fs.StringVar(&c.UserAgent, "user-agent", c.UserAgent, "the User-Agent `S`tring sent")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "give up on one fetch after `DUR`")
	fs.StringVar(&c.Proxy, "proxy", "", "send every fetch through this HTTP proxy `URL` (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)")
	fs.Var(flagvalue.CACert{Pool: &c.RootCAs}, "ca-cert", "trust the certificate authorities in this PEM `FILE` for https instead of the system's (e.g. a test web's own CA)")
	fs.Func("max-body", fmt.Sprintf("keep at most `BYTES` of a page (e.g. 10MiB, 500KB, 65536; default %s); longer pages are cut and marked truncated", formatBytes(c.MaxBody)), func(s string) error {
		n, err := parseBytes(s)
		if err == nil && n > webtable.MaxBody {
			return fmt.Errorf("%s is more than a stored page can hold (%s, one cell of the store)", s, formatBytes(webtable.MaxBody))
		}
		c.MaxBody = n
		return err
	})
}

// addContinuousFlags declares the flags of fetching pages again.
func addContinuousFlags(fs *flag.FlagSet, c *crawler.Config) {
	fs.BoolVar(&c.Recrawl, "recrawl", false, "fetch pages already stored again (conditional requests; a new version only when changed)")
	fs.BoolVar(&c.Continuous, "continuous", false, "never stop: fetch every stored page again when it is due, after an interval between --min-interval and --max-interval learnt from how often it changed (Ctrl-C ends the crawl; the same command resumes it)")
	fs.DurationVar(&c.MinInterval, "min-interval", c.MinInterval, "with --continuous: fetch a page again `DUR` after its last fetch at the soonest (e.g. 1h, 30m)")
	fs.DurationVar(&c.MaxInterval, "max-interval", c.MaxInterval, "with --continuous: fetch a page again `DUR` after its last fetch at the latest, even if it never changed (e.g. 720h for 30 days)")
}
