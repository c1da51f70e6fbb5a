package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
)

// TestCollect: the counters and levels are the source's figures, the
// histograms count the hooks' calls, and the last figures stay after the
// run.
func TestCollect(t *testing.T) {
	m := New()
	s := crawler.Stats{Fetched: 7, NewVersions: 5, Unchanged: 2, Errors: 3, Bytes: 1234, Queued: 9,
		ErrorsByKind: map[crawlstore.ErrorKind]int64{crawlstore.KindRobots: 3}}
	s.ByStatusClass[2], s.ByStatusClass[0] = 7, 3
	s.Sitemaps.Files, s.Sitemaps.Unchanged = 2, 6
	g := crawler.Gauges{Hosts: 4, Robots: 2, HeldBack: map[crawlstore.HoldReason]int64{crawlstore.HoldRetryAfter: 1}}
	m.SetSource(func() (crawler.Stats, crawler.Gauges, bool) { return s, g, true })
	h := m.Hooks()
	h.Fetch(20*time.Millisecond, 200)
	h.Fetch(time.Second, 0)
	h.Store(time.Millisecond)

	scrape := func() map[string]float64 {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
		if err != nil {
			t.Fatalf("parsing the metrics: %v\n%s", err, rec.Body.String())
		}
		out := map[string]float64{}
		for name, f := range fams {
			for _, mm := range f.Metric {
				key := name
				for _, l := range mm.Label {
					key += "," + l.GetName() + "=" + l.GetValue()
				}
				switch {
				case mm.Counter != nil:
					out[key] = mm.Counter.GetValue()
				case mm.Gauge != nil:
					out[key] = mm.Gauge.GetValue()
				case mm.Histogram != nil:
					out[key] = float64(mm.Histogram.GetSampleCount())
				}
			}
		}
		return out
	}
	want := map[string]float64{
		"webtable_crawl_pages_total,result=new_version":                              5,
		"webtable_crawl_pages_total,result=error":                                    3,
		"webtable_crawl_fetches_total,class=2xx":                                     7,
		"webtable_crawl_fetches_total,class=none":                                    3,
		"webtable_crawl_errors_total,kind=" + string(crawlstore.KindRobots):          3,
		"webtable_crawl_bytes_total":                                                 1234,
		"webtable_crawl_frontier_entries":                                            9,
		"webtable_crawl_hosts_active":                                                4,
		"webtable_crawl_hosts_held_back,reason=" + string(crawlstore.HoldRetryAfter): 1,
		"webtable_crawl_robots_cached":                                               2,
		"webtable_crawl_fetch_seconds,class=2xx":                                     1,
		"webtable_crawl_fetch_seconds,class=none":                                    1,
		"webtable_crawl_store_write_seconds":                                         1,
		"webtable_crawl_running":                                                     1,
		"webtable_crawl_sitemap_files_total,result=read":                             2,
		"webtable_crawl_sitemap_files_total,result=unchanged":                        6,
	}
	got := scrape()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	s.Done = true // the source's run is over: its final figures
	if got := scrape(); got["webtable_crawl_running"] != 0 {
		t.Errorf("after the run: running %v, want 0", got["webtable_crawl_running"])
	}
	m.SetSource(nil)
	if got := scrape(); got["webtable_crawl_running"] != 0 || got["webtable_crawl_pages_total,result=new_version"] != 5 {
		t.Errorf("after the run: running %v, new versions %v; want 0 and the last figure, 5", got["webtable_crawl_running"], got["webtable_crawl_pages_total,result=new_version"])
	}
}
