package crawler

import (
	"net/url"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// links resolves, canonicalises and filters the raw links of a page.
// Links whose URLs differ only in session-id parameters count as one
// target (see frontierKey); a link continuing a chain of more than
// MaxPatternChain hops within one URL pattern is not followed.
func (r *run) links(p *crawlstore.Page, e crawlstore.Entry, final *url.URL, ex extract.Links) {
	var linkURLs []*url.URL // the parsed URL of each of p.Links
	p.Links, linkURLs, p.LinksFound = resolveLinks(final, ex, r.c.cfg.MaxLinks, r.stats.trap)
	follow := p.Depth < r.c.cfg.Depth
	if !follow {
		return
	}
	pattern := urlPattern(final)
	for i, l := range p.Links {
		if l.NoFollow {
			continue
		}
		lu := linkURLs[i]
		if r.c.admit(lu, l.URL, r.domains) == refusedDomain {
			continue // traps never made it into p.Links
		}
		// Whether the URL was seen is the store's to say (SavePage reads
		// the state of every discovered URL in one batch); the cache only
		// spares it the URLs it answered for already in this run.
		su := withoutSession(lu)
		sk := urlkey.KeyOf(su)
		if r.seen.has(sk) {
			continue
		}
		chain := 0
		if urlPattern(lu) == pattern {
			if chain = e.Chain + 1; chain > MaxPatternChain {
				r.stats.trap()
				continue
			}
		}
		// NB: queued without session ids, so that the store, which keys
		// what it has seen by URL, sees one URL however many ids link to it.
		p.Discovered = append(p.Discovered, crawlstore.Entry{URL: su.String(), Key: sk, Depth: p.Depth + 1, Chain: chain})
	}
}

// resolveLinks resolves and canonicalises the raw links of the page at
// final: one Link per distinct target (links whose URLs differ only in
// session-id parameters count as one, see frontierKey), resolved against
// <base>, traps and links to the page itself left out, at most maxLinks
// kept in document order. It returns the kept links, the parsed URL of
// each, and how many distinct targets were found; onTrap, if not nil, is
// called for each trap left out.
func resolveLinks(final *url.URL, ex extract.Links, maxLinks int, onTrap func()) (links []crawlstore.Link, urls []*url.URL, found int) {
	base := urlkey.LinkBase(final, ex.Base)
	self := frontierKey(final)
	index := make(map[string]int, len(ex.Links))
	for _, l := range ex.Links {
		if l.Href == "" || len(l.Href) > 4*MaxURLLength {
			continue
		}
		cu, ok := urlkey.Resolve(base, l.Href)
		if !ok {
			continue
		}
		s := cu.String()
		if isTrap(cu, s) {
			if onTrap != nil {
				onTrap()
			}
			continue
		}
		key := frontierKey(cu)
		if key == self {
			continue
		}
		nofollow := l.NoFollow || ex.MetaNoFollow
		if i, ok := index[key]; ok {
			if i < 0 {
				continue
			}
			if links[i].Text == "" {
				links[i].Text = l.Text
			}
			links[i].NoFollow = links[i].NoFollow && nofollow
			continue
		}
		found++
		if len(links) >= maxLinks {
			index[key] = -1 // found, not kept: counted once
			continue
		}
		index[key] = len(links)
		links = append(links, crawlstore.Link{URL: s, Text: l.Text, NoFollow: nofollow})
		urls = append(urls, cu)
	}
	return links, urls, found
}
