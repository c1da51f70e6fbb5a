package freshsim

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"time"
)

// Web is a simulated web: each page's rate of change.
type Web struct {
	// Rates are the pages' rates of change, in changes per second (0:
	// never changes).
	Rates []float64
}

// Generate returns a web of n pages: a share never of them never change,
// the others change at rates spread evenly on a log scale from lo to hi
// changes a day.
func Generate(seed uint64, n int, never, lo, hi float64) Web {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := Web{Rates: make([]float64, n)}
	for i := range w.Rates {
		if rng.Float64() < never {
			continue
		}
		perDay := lo * math.Pow(hi/lo, rng.Float64())
		w.Rates[i] = perDay / 86400
	}
	return w
}

// Scheduler is a recrawl policy: when each page is due again.
type Scheduler interface {
	// Visited says page i was fetched at now and found changed or not
	// since its last fetch; it returns how long until it is due again.
	Visited(i int, now time.Duration, changed bool) time.Duration
	// Tick is called once a simulated day, before that day's fetches.
	Tick(now time.Duration)
}

// Config is one simulated crawl.
type Config struct {
	// Budget is the most fetches a day.
	Budget int
	// Days is how long the crawl runs; Warmup how many of its first days
	// are left out of the average.
	Days, Warmup int
	// Seed drives the pages' changes.
	Seed uint64
}

// Result is what a simulated crawl measured.
type Result struct {
	// Freshness is the time-averaged share of pages whose stored copy is
	// the live one, after the warm-up, sampled every 4 simulated hours.
	Freshness float64
	// Fetches counts the fetches made after the warm-up.
	Fetches int
}

// sampleEvery is how many simulated hours apart freshness is sampled.
const sampleEvery = 4

// Run crawls w with s under cfg. Every page is first due at a time spread
// over the first uniform interval, in page order.
func Run(w Web, s Scheduler, cfg Config) Result {
	n := len(w.Rates)
	rng := rand.New(rand.NewPCG(cfg.Seed, 2))
	nextChange := make([]time.Duration, n)
	lastChange := make([]time.Duration, n) // -1: never changed
	lastFetch := make([]time.Duration, n)  // -1: never fetched
	q := make(dueQueue, n)
	spacing := 24 * time.Hour / time.Duration(cfg.Budget)
	for i, r := range w.Rates {
		nextChange[i] = expAfter(rng, 0, r)
		lastChange[i], lastFetch[i] = -1, -1
		q[i] = due{at: time.Duration(i) * spacing, page: i}
	}
	heap.Init(&q)
	var res Result
	var sum float64
	samples := 0
	credit := 0.0
	for hour := 0; hour < cfg.Days*24; hour++ {
		now := time.Duration(hour) * time.Hour
		if hour%24 == 0 {
			s.Tick(now)
		}
		credit += float64(cfg.Budget) / 24
		// NB: work-conserving: the budget is spent, on the pages due
		// soonest, even when none is due yet.
		for credit >= 1 && len(q) > 0 {
			d := heap.Pop(&q).(due)
			i := d.page
			for nextChange[i] <= now {
				lastChange[i] = nextChange[i]
				nextChange[i] = expAfter(rng, nextChange[i], w.Rates[i])
			}
			changed := lastFetch[i] >= 0 && lastChange[i] > lastFetch[i]
			first := lastFetch[i] < 0
			lastFetch[i] = now
			credit--
			if hour >= cfg.Warmup*24 {
				res.Fetches++
			}
			var next time.Duration
			if first {
				next = s.Visited(i, now, true)
			} else {
				next = s.Visited(i, now, changed)
			}
			heap.Push(&q, due{at: now + max(next, time.Hour), page: i})
		}
		credit = math.Min(credit, float64(cfg.Budget)/24) // unused budget does not pile up
		if hour < cfg.Warmup*24 || hour%sampleEvery != 0 {
			continue
		}
		fresh := 0
		for i := range n {
			for nextChange[i] <= now {
				lastChange[i] = nextChange[i]
				nextChange[i] = expAfter(rng, nextChange[i], w.Rates[i])
			}
			if lastFetch[i] >= 0 && lastChange[i] <= lastFetch[i] {
				fresh++
			}
		}
		sum += float64(fresh) / float64(n)
		samples++
	}
	if samples > 0 {
		res.Freshness = sum / float64(samples)
	}
	return res
}

// expAfter is the time of the next change after t of a page of rate r
// per second (never: far in the future).
func expAfter(rng *rand.Rand, t time.Duration, r float64) time.Duration {
	if r <= 0 {
		return math.MaxInt64
	}
	d := rng.ExpFloat64() / r
	if d > 1e8 { // more than three years: never, within a simulation
		return math.MaxInt64
	}
	return t + time.Duration(d*float64(time.Second))
}

// due is a page's place in the queue.
type due struct {
	at   time.Duration
	page int
}

// dueQueue is a min-heap by due time.
type dueQueue []due

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(due)) }
func (q *dueQueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q = old[:len(old)-1]
	return d
}
