package cloud

import (
	"errors"
	"fmt"
	"strings"

	"github.com/webtable/webtable/bigtable"
)

// URLPrefix starts every Cloud Bigtable URL: bigtable://PROJECT/INSTANCE[/TABLE].
const URLPrefix = "bigtable://"

// ErrInvalidURL: a string given as a Cloud Bigtable URL is not one.
var ErrInvalidURL = errors.New("cloud: invalid URL")

// URL names a Cloud Bigtable instance and, optionally, a table in it.
type URL struct {
	Project  string
	Instance string
	Table    string // "" if the URL names none
}

// IsURL reports whether s is meant as a Cloud Bigtable URL (it starts with
// URLPrefix), as opposed to a directory of the embedded store. It does not
// check the rest; ParseURL does.
func IsURL(s string) bool { return strings.HasPrefix(s, URLPrefix) }

// ParseURL parses bigtable://PROJECT/INSTANCE or
// bigtable://PROJECT/INSTANCE/TABLE, for example
// bigtable://my-project/my-instance/webtable.
//
// PROJECT may hold letters, digits and "-._:" (domain-scoped projects are
// example.com:my-project); INSTANCE letters, digits and "-._"; TABLE must be
// a valid bigtable table name ([_a-zA-Z0-9][-_.a-zA-Z0-9]*, at most
// bigtable.MaxNameSize bytes). Empty parts, a trailing slash, more parts, a
// query or a fragment are errors wrapping ErrInvalidURL.
func ParseURL(s string) (URL, error) {
	bad := func(format string, args ...any) (URL, error) {
		return URL{}, fmt.Errorf("%w %q: %s", ErrInvalidURL, s, fmt.Sprintf(format, args...))
	}
	rest, ok := strings.CutPrefix(s, URLPrefix)
	if !ok {
		return bad("want %sPROJECT/INSTANCE[/TABLE]", URLPrefix)
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return bad("want %sPROJECT/INSTANCE[/TABLE], got %d part(s)", URLPrefix, len(parts))
	}
	u := URL{Project: parts[0], Instance: parts[1]}
	if len(parts) == 3 {
		u.Table = parts[2]
		if u.Table == "" {
			return bad("empty table (drop the trailing slash)")
		}
	}
	if err := checkPart("project", u.Project, "-._:"); err != "" {
		return bad("%s", err)
	}
	if err := checkPart("instance", u.Instance, "-._"); err != "" {
		return bad("%s", err)
	}
	if u.Table != "" && !validTable(u.Table) {
		return bad("table %q must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most %d bytes", u.Table, bigtable.MaxNameSize)
	}
	return u, nil
}

// checkPart returns why part is not a valid project or instance, or "".
func checkPart(kind, part, punct string) string {
	if part == "" {
		return "empty " + kind
	}
	for i := 0; i < len(part); i++ {
		c := part[i]
		if !isAlnum(c) && strings.IndexByte(punct, c) < 0 {
			return fmt.Sprintf("%s %q: byte %q not allowed (want letters, digits and %q)", kind, part, c, punct)
		}
	}
	return ""
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// validTable is bigtable's rule for table names.
func validTable(s string) bool {
	if s == "" || len(s) > bigtable.MaxNameSize {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '_' && !((c == '-' || c == '.') && i > 0) {
			return false
		}
	}
	return true
}

// String returns the URL in the form ParseURL reads.
func (u URL) String() string {
	s := URLPrefix + u.Project + "/" + u.Instance
	if u.Table != "" {
		s += "/" + u.Table
	}
	return s
}
