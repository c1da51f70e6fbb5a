package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webtable/webtable/crawler"
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
}

const usageText = `crawl fetches web pages into a WebTable: one row per page, keyed by the URL
with its host reversed (http://www.cnn.com/a -> com.cnn.www/a).

Usage:
  crawl [flags] [URL ...]
  crawl --demo
  crawl --from-warc FILE.warc.gz [FILE ...] [--db DIR]

Examples:
  crawl --demo                                  crawl a built-in sample web (no network)
  crawl --seeds seeds/default.txt --depth 1     a few well-known sites, one hop deep
  crawl http://example.org/ --max-pages 100     one site, 100 pages at most
  crawl --render auto http://example.org/       also load pages built by scripts in chromium
  crawl --recrawl --seeds my-seeds.txt          fetch stored pages again, keep changed versions
  crawl --from-warc site.warc.gz                build the table from a web archive (no network)
  crawl --continuous --budget 10000/1h http://example.org/
                                                never stop: fetch each page again when it is due,
                                                sooner for pages that change often (Ctrl-C ends it)

  crawl --db bigtable://my-project/my-instance --seeds my-seeds.txt
                                                crawl into Cloud Bigtable (table "webtable")

To split a crawl between N machines (or processes), run "crawl --shard I/N"
on each, I from 0 to N-1, with the same seeds and flags and the same --db
(Cloud Bigtable, or its emulator through BIGTABLE_EMULATOR_HOST). Each
fetches only its own hosts and queues the links it finds for the others.
A shard keeps running until the whole crawl is finished: when its part is
empty it waits for the others to queue more, and all of them stop, exit
status 0, once every shard is idle and nothing is queued. A shard that is
killed carries on when started again with the same command. A shard that
stays silent longer than --shard-timeout makes the others stop with exit
status 3, naming it. --max-pages then counts the pages of all shards.

--from-warc reads web archives (WARC files, gzipped or not, as wget
--warc-file, Heritrix, Browsertrix or "query export --warc" write them)
instead of the network: each captured page becomes a version of its row,
dated by its capture, with the anchors of its links. Nothing is fetched
or queued; robots.txt and --depth do not apply, --max-body and
--store-all do.

With --serve ADDR the crawl also serves its store over Cloud Bigtable's own
gRPC API while it runs, and keeps serving after it finishes (or, with
nothing to crawl, only serves) until Ctrl-C: "query --db DIR" then reads
the store live, and any Bigtable client or cbt reaches it with
BIGTABLE_EMULATOR_HOST=ADDR (table "webtable", any project and instance).

Seeds come from --seeds FILE (one URL per line, # comments) and from the
arguments. A crawl that was stopped (Ctrl-C, or killed) carries on where it
stopped the next time it runs on the same --db.

Memory does not grow with the crawl: the URLs waiting to be fetched live
in the store, and a store in a directory is sized so that its own memory
does not grow with it. The program asks Go's garbage collector to keep it
under 448 MiB (a soft limit: it takes more if it must); set the GOMEMLIMIT
environment variable (e.g. GOMEMLIMIT=2GiB) to choose another.

Flags:
`

// parseFlags reads the command line; --help is written to helpOut. Errors
// are usage errors (exit 2).
func parseFlags(args []string, helpOut io.Writer) (*options, error) {
	o := &options{cfg: crawler.DefaultConfig()}
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := &o.cfg
	fs.StringVar(&o.db, "db", defaultDB, "the store: a `DIR`ectory (created if absent) or bigtable://PROJECT/INSTANCE[/TABLE] for Cloud Bigtable")
	fs.StringVar(&o.seedsFile, "seeds", "", "read seed URLs from `FILE`, one per line")
	fs.IntVar(&c.Depth, "depth", c.Depth, "follow links at most `N` hops from a seed")
	fs.IntVar(&c.MaxPages, "max-pages", c.MaxPages, "stop after `N` successful fetches in this run; with --shard, in the whole crawl, all shards and restarts together (0 = no limit)")
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "at most `N` fetches in flight overall")
	fs.IntVar(&c.PerHost, "per-host", c.PerHost, "at most `N` fetches in flight to one host when --delay is 0 (with a delay, one at a time)")
	fs.DurationVar(&c.Delay, "delay", c.Delay, "wait `DUR` from the end of one response from a host to the next request to it, so the host never sees two requests closer than DUR (a longer robots.txt Crawl-delay wins)")
	fs.StringVar(&c.Proxy, "proxy", "", "send every fetch through this HTTP proxy `URL` (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)")
	fs.Func("ca-cert", "trust the certificate authorities in this PEM `FILE` for https instead of the system's (e.g. a test web's own CA)", func(path string) error {
		pool, err := loadCACert(path)
		c.RootCAs = pool
		return err
	})
	fs.BoolVar(&c.AllowPrivate, "allow-private", false, "fetch from loopback, private-network and link-local addresses (127.0.0.1, 10.x, 192.168.x, 169.254.x, [::1]) even when no seed is one: by default a redirect or link to them is refused")
	fs.BoolVar(&c.IgnoreRobots, "ignore-robots", false, "do not read or obey robots.txt")
	fs.StringVar(&c.UserAgent, "user-agent", c.UserAgent, "the User-Agent `S`tring sent")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "give up on one fetch after `DUR`")
	fs.Func("max-body", fmt.Sprintf("keep at most `BYTES` of a page (e.g. 10MiB, 500KB, 65536; default %s); longer pages are cut and marked truncated", formatBytes(c.MaxBody)), func(s string) error {
		n, err := parseBytes(s)
		if err == nil && n > webtable.MaxBody {
			return fmt.Errorf("%s is more than a stored page can hold (%s, one cell of the store)", s, formatBytes(webtable.MaxBody))
		}
		c.MaxBody = n
		return err
	})
	fs.Func("allow-domain", "crawl only this `D`omain and its subdomains (repeatable; default: each seed's registrable domain)", func(s string) error {
		s = strings.TrimSpace(strings.ToLower(s))
		if s == "" || strings.ContainsAny(s, "/:@ ") {
			return fmt.Errorf("%q is not a domain name (want e.g. example.org)", s)
		}
		c.AllowDomains = append(c.AllowDomains, s)
		return nil
	})
	fs.IntVar(&c.MaxPagesPerHost, "max-pages-per-host", c.MaxPagesPerHost, "fetch at most `N` pages of one host, counting earlier runs of the same --db (0 = no limit)")
	fs.IntVar(&c.SeenCache, "seen-cache", c.SeenCache, "remember `N` links per run as already known, to spare the store reading them again (0 = off; the store decides)")
	fs.IntVar(&c.MaxLinks, "max-links", c.MaxLinks, "keep at most `N` links of a page, the first in the page (how many it had is recorded in fetch:record as links)")
	fs.BoolVar(&c.Recrawl, "recrawl", false, "fetch pages already stored again (conditional requests; a new version only when changed)")
	fs.BoolVar(&c.Continuous, "continuous", false, "never stop: fetch every stored page again when it is due, after an interval between --min-interval and --max-interval learnt from how often it changed (Ctrl-C ends the crawl; the same command resumes it)")
	fs.DurationVar(&c.MinInterval, "min-interval", c.MinInterval, "with --continuous: fetch a page again `DUR` after its last fetch at the soonest (e.g. 1h, 30m)")
	fs.DurationVar(&c.MaxInterval, "max-interval", c.MaxInterval, "with --continuous: fetch a page again `DUR` after its last fetch at the latest, even if it never changed (e.g. 720h for 30 days)")
	fs.Func("budget", "fetch at most `N/DUR` pages, e.g. 10000/1h: N in any DUR (default no limit)", func(s string) error {
		b, err := crawler.ParseBudget(s)
		c.Budget = b
		return err
	})
	fs.Func("sitemap", "also read the sitemap at this `URL` (repeatable; e.g. https://example.org/sitemap.xml, a sitemap index or .xml.gz too) and queue the pages it lists; the Sitemap lines of robots.txt are read anyway", func(s string) error {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			return fmt.Errorf("%q is not an http(s) URL (want e.g. https://example.org/sitemap.xml)", s)
		}
		c.Sitemaps = append(c.Sitemaps, s)
		return nil
	})
	fs.BoolVar(&c.NoSitemaps, "no-sitemaps", false, "read no sitemaps: neither --sitemap nor the Sitemap lines of robots.txt")
	fs.BoolVar(&c.StoreAll, "store-all", false, "keep the bodies of non-HTML responses too")
	addRenderFlags(fs, o)
	fs.Func("shard", "crawl only the hosts of shard `I/N` (0 <= I < N) of a crawl split between N crawlers sharing one --db", func(v string) error {
		i, n, err := parseShard(v)
		c.Shard, c.Shards = i, n
		return err
	})
	fs.DurationVar(&o.shardTimeout, "shard-timeout", shardrun.DefaultTimeout, "with --shard: stop, exit status 3, when another shard has given no sign of life for `DUR`")
	fs.IntVar(&o.versions, "versions", webtable.DefaultVersions, "keep `N` versions of each page's HTML")
	fs.Func("from-warc", "build the table from this WARC `FILE` instead of fetching (repeatable; further arguments are WARC files too)", func(s string) error {
		o.warcs = append(o.warcs, s)
		return nil
	})
	fs.StringVar(&o.serve, "serve", "", "while crawling, serve the store on `ADDR` (e.g. 127.0.0.1:8086; port 0 picks one) over Cloud Bigtable's API, so that query, cbt and Bigtable clients (BIGTABLE_EMULATOR_HOST=ADDR) can read it; keep serving after the crawl until Ctrl-C")
	fs.StringVar(&o.metricsAddr, "metrics", "", "serve Prometheus metrics on `ADDR` at /metrics while crawling (e.g. 127.0.0.1:9464; port 0 picks one): fetches by status and error, bytes, latencies, frontier, hosts, memory")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "let --serve listen on an address other machines can reach (the protocol has no authentication: anyone who reaches it can read and change the store)")
	fs.BoolVar(&o.demo, "demo", false, "crawl a built-in sample web (www.cnn.com, cnnsi.com, my.look.ca on 127.0.0.1) 3 times into "+defaultDemoDB)

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
		if o.demo || o.seedsFile != "" {
			return nil, fmt.Errorf("--from-warc reads pages from files: leave out --demo and --seeds")
		}
		if o.serve != "" {
			return nil, fmt.Errorf("--from-warc builds the table and exits: serve it afterwards with crawl --serve ADDR --db DIR")
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "db":
			o.dbSet = true
		case "delay":
			o.delaySet = true
		}
	})
	if o.shardTimeout <= 0 {
		return nil, fmt.Errorf("--shard-timeout %v: give a positive duration (e.g. 3m)", o.shardTimeout)
	}
	if c.Continuous && (c.MinInterval <= 0 || c.MaxInterval < c.MinInterval) {
		return nil, fmt.Errorf("--min-interval %v and --max-interval %v: want 0 < min <= max (e.g. 1h and 720h)", c.MinInterval, c.MaxInterval)
	}
	if c.Continuous && len(o.warcs) > 0 {
		return nil, fmt.Errorf("--continuous fetches pages again: leave out --from-warc")
	}
	if o.versions < 1 {
		return nil, fmt.Errorf("--versions %d: keep at least 1 version", o.versions)
	}
	if o.demo && (o.seedsFile != "" || len(o.seeds) > 0) {
		return nil, fmt.Errorf("--demo crawls its own sample web: leave out --seeds and seed URLs")
	}
	if o.serve != "" && o.demo {
		return nil, fmt.Errorf("--serve serves a crawl's store: use it without --demo (crawl --db %s --serve ADDR serves the demo's store)", defaultDemoDB)
	}
	if o.allowRemote && o.serve == "" {
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
