package demoweb

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTour: every command of the tour reads the store it names, and every
// URL it names is a page the sample web serves from its seeds.
func TestTour(t *testing.T) {
	tour := Tour("./x.db")
	cmds := 0
	for line := range strings.SplitSeq(tour, "\n") {
		if !strings.Contains(line, "go run ./cmd/query") {
			continue
		}
		cmds++
		if !strings.Contains(line, "--db ./x.db ") {
			t.Errorf("tour line %q does not read --db ./x.db", line)
		}
	}
	if cmds == 0 {
		t.Fatalf("Tour has no query commands:\n%s", tour)
	}
	for _, u := range regexp.MustCompile(`http://\S+`).FindAllString(tour, -1) {
		if !slices.Contains(Seeds(), u) {
			t.Errorf("Tour names %s, which is not a seed of the sample web %v", u, Seeds())
		}
	}
}
