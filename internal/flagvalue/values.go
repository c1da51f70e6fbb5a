package flagvalue

import (
	"crypto/x509"
	"fmt"
	"strings"
)

// Domains is a flag.Value that appends each domain name given to *List
// (crawl --allow-domain, repeatable), trimmed and lowercased:
// " Example.ORG" -> "example.org". A value with a slash, colon, @ or space
// in it is not a domain name.
type Domains struct{ List *[]string }

// String is "": the flag has no default to show.
func (Domains) String() string { return "" }

// Set appends the domain s.
func (d Domains) Set(s string) error {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" || strings.ContainsAny(s, "/:@ ") {
		return fmt.Errorf("%q is not a domain name (want e.g. example.org)", s)
	}
	*d.List = append(*d.List, s)
	return nil
}

// HTTPURLs is a flag.Value that appends each http or https URL given to
// *List, as given (crawl --sitemap, repeatable); Example is shown in the
// error of any other value (e.g. "https://example.org/sitemap.xml").
type HTTPURLs struct {
	List    *[]string
	Example string
}

// String is "": the flag has no default to show.
func (HTTPURLs) String() string { return "" }

// Set appends the URL s.
func (u HTTPURLs) Set(s string) error {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return fmt.Errorf("%q is not an http(s) URL (want e.g. %s)", s, u.Example)
	}
	*u.List = append(*u.List, s)
	return nil
}

// Shard is a flag.Value that reads I/N (ParseShard) into *I and *N
// (crawl --shard).
type Shard struct{ I, N *int }

// String is "": the flag has no default to show.
func (Shard) String() string { return "" }

// Set reads v.
func (f Shard) Set(v string) (err error) {
	*f.I, *f.N, err = ParseShard(v)
	return err
}

// CACert is a flag.Value that loads the certificate authorities of a PEM
// file (LoadCACert) into *Pool (crawl --ca-cert).
type CACert struct{ Pool **x509.CertPool }

// String is "": the flag has no default to show.
func (CACert) String() string { return "" }

// Set loads the file at path.
func (f CACert) Set(path string) (err error) {
	*f.Pool, err = LoadCACert(path)
	return err
}
