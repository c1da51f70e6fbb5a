package freshsim

import (
	"os"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
)

// policies are the recrawl policies compared, for a web of pages pages
// and a budget of fetches a day.
func policies(w Web, budget int) map[string]Scheduler {
	pages := len(w.Rates)
	start := time.Duration(pages) * 24 * time.Hour / time.Duration(budget)
	perSecond := float64(budget) / 86400
	return map[string]Scheduler{
		"uniform": &Uniform{Interval: start},
		"nutch":   &Nutch{Start: start},
		"rate": &ByChangeRate{Start: start, Budget: perSecond, MinVisits: 2,
			Min: crawler.DefaultMinInterval, Max: crawler.DefaultMaxInterval},
		"oracle": &ByChangeRate{Start: start, Budget: perSecond, Oracle: w.Rates,
			Min: crawler.DefaultMinInterval, Max: crawler.DefaultMaxInterval},
	}
}

// compare runs every policy on a web of pages pages (20% never changing,
// the others from one change in 10 days to 100 a day: three orders of
// magnitude) with a budget of 15% of the pages a day.
func compare(t *testing.T, pages, days, warmup int) map[string]Result {
	w := Generate(1, pages, 0.2, 0.1, 100)
	budget := pages * 15 / 100
	cfg := Config{Budget: budget, Days: days, Warmup: warmup, Seed: 7}
	got := map[string]Result{}
	for name, s := range policies(w, budget) {
		got[name] = Run(w, s, cfg)
	}
	for _, name := range []string{"uniform", "nutch", "rate", "oracle"} {
		r := got[name]
		t.Logf("%-8s freshness %.4f (%.2fx uniform), %d fetches", name, r.Freshness, r.Freshness/got["uniform"].Freshness, r.Fetches)
		if limit := budget * (days - warmup); r.Fetches > limit {
			t.Errorf("%s made %d fetches, over the budget of %d", name, r.Fetches, limit)
		}
	}
	return got
}

// TestFreshness: on a small simulated web, the crawl's policy keeps pages
// fresher than uniform revisits and than Nutch's, and with the true rates
// (the oracle) at least 1.15 times as fresh as uniform revisits.
func TestFreshness(t *testing.T) {
	got := compare(t, 2000, 40, 15)
	checkOrder(t, got, 1.15)
}

// TestFreshnessBenchmark is the benchmark of issue 35, 10,000 pages for 90
// simulated days (30 of warm-up), about 3 s of CPU: WEBTABLE_FRESHNESS=1
// go test -run TestFreshnessBenchmark -v ./internal/freshsim.
func TestFreshnessBenchmark(t *testing.T) {
	if os.Getenv("WEBTABLE_FRESHNESS") == "" {
		t.Skip("set WEBTABLE_FRESHNESS=1 to run the 10,000 page benchmark (TestFreshness runs a smaller one)")
	}
	got := compare(t, 10_000, 90, 30)
	checkOrder(t, got, 1.15)
}

func checkOrder(t *testing.T, got map[string]Result, oracle float64) {
	t.Helper()
	u, n, r, o := got["uniform"].Freshness, got["nutch"].Freshness, got["rate"].Freshness, got["oracle"].Freshness
	if r <= u || r <= n {
		t.Errorf("freshness by change rate %.4f, want more than uniform's %.4f and Nutch's %.4f", r, u, n)
	}
	if o < oracle*u {
		t.Errorf("freshness with the true rates %.4f < %.2f x uniform %.4f: the policy itself falls short", o, oracle, u)
	}
}
