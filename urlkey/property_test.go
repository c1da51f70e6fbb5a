package urlkey_test

import (
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// Label pools chosen to make near misses: names that share a prefix with a
// domain (cnn, cnnsi, cnn-money, cnn0), that differ in a byte just below or
// above '.', '/' or ':' ('-' and '0'), and IDN labels.
var (
	labels = []string{"cnn", "cnnsi", "cnn-money", "cnnx", "cnn0", "cn", "www", "edition", "a", "a-b",
		"a_b", "b", "9x", "bücher", "xn--mnchen-3ya", "maps", "google", "look", "my", "CNN"}
	tlds  = []string{"com", "ca", "de", "co", "uk", "org", "comx", "c0m"}
	segs  = []string{"", "a", "b", "index.html", "..", ".", "%2e", "caf%c3%a9", "café", "a b", "%7E", "x?y=1", "~", "A"}
	ports = []string{"", "", "", ":80", ":8080", ":81", ":0", ":443", ":"}
)

type page struct {
	raw, key, host string // host: canonical, without port or brackets
	defaultPort    bool
}

func randomPage(r *rand.Rand) page {
	var host string
	switch r.IntN(20) {
	case 0:
		host = "10.0." + strconv.Itoa(r.IntN(3)) + "." + strconv.Itoa(r.IntN(12))
	case 1:
		host = "[::" + strconv.Itoa(r.IntN(3)) + "]"
	default:
		n := 1 + r.IntN(4)
		l := []string{tlds[r.IntN(len(tlds))]}
		for range n - 1 {
			l = append(l, labels[r.IntN(len(labels))])
		}
		slices.Reverse(l)
		host = strings.Join(l, ".")
	}
	var path strings.Builder
	for range r.IntN(4) {
		path.WriteString("/" + segs[r.IntN(len(segs))])
	}
	scheme := []string{"http", "https"}[r.IntN(2)]
	raw := scheme + "://" + host + ports[r.IntN(len(ports))] + path.String()
	u, err := urlkey.Canonical(raw)
	if err != nil {
		panic(err) // the pools hold only valid pieces
	}
	return page{raw: raw, key: urlkey.KeyOf(u), host: u.Hostname(), defaultPort: u.Port() == ""}
}

// domainsOf returns the domains a canonical host belongs to: every suffix
// of whole labels of a name, only itself for an IP address.
func domainsOf(host string) []string {
	if net.ParseIP(host) != nil {
		return []string{host}
	}
	var ds []string
	for {
		ds = append(ds, host)
		i := strings.IndexByte(host, '.')
		if i < 0 {
			return ds
		}
		host = host[i+1:]
	}
}

func inDomain(host, domain string) bool {
	if net.ParseIP(host) != nil || net.ParseIP(domain) != nil {
		return host == domain
	}
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// TestDomainsContiguous checks, for random sets of hosts and paths, that
// sorting the keys leaves every domain's pages on the default port
// contiguous, and that with other ports too a domain's pages are exactly
// those in DomainRanges, in no more runs than there are ranges.
func TestDomainsContiguous(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	for round := range rounds {
		pages := make([]page, 1+r.IntN(60))
		for i := range pages {
			pages[i] = randomPage(r)
		}
		slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.key, b.key) })
		domains := map[string]bool{}
		for _, p := range pages {
			for _, d := range domainsOf(p.host) {
				domains[d] = true
			}
		}
		for d := range domains {
			rs := urlkey.DomainRanges(d)
			if rs == nil {
				t.Fatalf("round %d: DomainRanges(%q) = nil", round, d)
			}
			// Runs of in-domain pages among all pages, and among the pages on
			// the default port only.
			runs, runsDefault := 0, 0
			prevIn, prevInDefault := false, false
			for _, p := range pages {
				in := inDomain(p.host, d)
				if in != inRanges(p.key, rs) {
					t.Errorf("round %d: page %q (key %q): in domain %q is %v, in DomainRanges %v is %v",
						round, p.raw, p.key, d, in, rs, !in)
				}
				if in && !prevIn {
					runs++
				}
				prevIn = in
				if p.defaultPort {
					if in && !prevInDefault {
						runsDefault++
					}
					prevInDefault = in
				}
			}
			if runsDefault > 1 {
				t.Errorf("round %d: domain %q: pages on the default port are in %d runs, want 1:\n%s",
					round, d, runsDefault, dump(pages))
			}
			if runs > len(rs) {
				t.Errorf("round %d: domain %q: pages are in %d runs, more than its %d ranges:\n%s",
					round, d, runs, len(rs), dump(pages))
			}
		}
	}
}

func dump(pages []page) string {
	var b strings.Builder
	for _, p := range pages {
		b.WriteString("\t" + p.key + "\n")
	}
	return b.String()
}
