package crawler

import "fmt"

// hostCount is a host's pages for MaxPagesPerHost: done (counted by the
// store at the host's first entry in the run, then here) and being
// fetched.
type hostCount struct{ done, fetching int }

// hostAdmits reserves a fetch of host under MaxPagesPerHost, and reports
// false when the host has its pages (its entries stay queued), or after a
// store failure. A reserved fetch is ended by hostDone.
func (r *run) hostAdmits(host string) bool {
	limit := r.c.cfg.MaxPagesPerHost
	if limit <= 0 {
		return true
	}
	r.mu.Lock()
	hc := r.hosts[host]
	r.mu.Unlock()
	if hc == nil {
		n, err := r.c.store.HostPages(r.storeCtx, host, limit)
		if err != nil {
			r.fail(fmt.Errorf("%w: counting the pages of %s: %w", ErrStore, host, err))
			return false
		}
		r.mu.Lock()
		if r.hosts == nil {
			r.hosts = make(map[string]*hostCount)
		}
		if hc = r.hosts[host]; hc == nil {
			hc = &hostCount{done: n}
			r.hosts[host] = hc
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if hc.done+hc.fetching >= limit {
		return false
	}
	hc.fetching++
	return true
}

// hostDone ends a fetch reserved by hostAdmits; done reports a page
// marked done.
func (r *run) hostDone(host string, done bool) {
	if r.c.cfg.MaxPagesPerHost <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hc := r.hosts[host]
	hc.fetching--
	if done {
		hc.done++
	}
}
