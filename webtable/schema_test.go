package webtable

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// policyCounter is the embedded store counting the GC policies set.
type policyCounter struct {
	*bigtable.DB
	set []string // the families whose policy was set, in order
}

func (p *policyCounter) SetGCPolicy(ctx context.Context, table, family string, gp bigtable.GCPolicy) error {
	p.set = append(p.set, family)
	return p.DB.SetGCPolicy(ctx, table, family, gp)
}

// TestReopenSetsOnlyChangedGCPolicies: a crawl that opens a WebTable whose
// policies are already in force sets none of them again (setting one makes
// the embedded store sweep the whole table, which cost a resumed crawl of
// 20,000 pages 15 s before its first request); a changed --versions sets
// that family's policy, and only that one.
func TestReopenSetsOnlyChangedGCPolicies(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "webtable.db")
	open := func(opts Options) []string {
		t.Helper()
		db, err := bigtable.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		pc := &policyCounter{DB: db}
		w, err := New(ctx, pc, db.Open(TableName), true, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, fams, err := w.Schema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := max(opts.Versions, DefaultVersions)
		for _, f := range fams {
			if f.Name == FamilyContents && f.GCPolicy != bigtable.MaxVersionsPolicy(want).String() {
				t.Errorf("contents policy = %q, want %q", f.GCPolicy, bigtable.MaxVersionsPolicy(want))
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return pc.set
	}
	if got := open(Options{}); len(got) != len(Families) {
		t.Errorf("a new WebTable set the policies of %v, want all %d families", got, len(Families))
	}
	if got := open(Options{}); len(got) != 0 {
		t.Errorf("reopening with the same options set the policies of %v again, want none", got)
	}
	if got := open(Options{Versions: 5}); len(got) != 1 || got[0] != FamilyContents {
		t.Errorf("reopening with Versions 5 set the policies of %v, want only [%s]", got, FamilyContents)
	}
}
