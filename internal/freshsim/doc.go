// Package freshsim is a simulated web for measuring recrawl policies: pages
// whose contents change as Poisson processes, a crawler with a fixed budget
// of fetches per simulated hour, and the time-averaged freshness (the share
// of pages whose stored copy equals the live page) each policy keeps.
// Time is simulated (an injected clock, no sleeping): 90 days of a 10,000
// page web take well under a second.
//
// Three policies run on the same web: [Uniform] (every page at the same
// interval), [Nutch] (Nutch's AdaptiveFetchSchedule: the interval times 1.4
// when a page is unchanged, times 0.8 when changed, within 60 s to 365
// days) and [ByChangeRate], the crawl's own (crawler.ChangeEstimate and
// crawler.Policy: Cho and Garcia-Molina's estimators, from Last-Modified
// dates for the share of pages that send them (Config.LastModified) and
// from changes seen in visits for the others, which are probed when every
// visit found a change; and the interval that maximises the whole
// collection's freshness for the budget).
//
// The benchmark (TestFreshnessBenchmark) and its sweep (TestFreshnessSweep:
// shares of pages never changing, rate ranges, budgets, shares sending
// Last-Modified, the oracle beside each) run with WEBTABLE_FRESHNESS=1;
// docs/performance.md has their figures.
//
// Every page draws its changes from its own random stream, so that every
// policy run with one seed meets the same changes; the budget, the
// warm-up left out of the average and the sampling are the same for all.
//
// # Caveats
//
//   - A change is always to new content: a page never changes back.
//   - Fetches take no time and never fail.
//   - Time moves by the hour: no page is fetched again within an hour
//     (Nutch's 60 s lower bound never binds).
//   - A page that sends Last-Modified sends the true time of its last
//     change; real servers may send the time of the request (the crawl
//     then falls back to the estimate from changes, see
//     crawler.ChangeEstimate.ObserveModified).
package freshsim
