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
// crawler.Policy: Cho and Garcia-Molina's estimator and the interval that
// maximises the whole collection's freshness for the budget).
//
// # Caveats
//
//   - A change is always to new content: a page never changes back.
//   - Fetches take no time and never fail.
package freshsim
