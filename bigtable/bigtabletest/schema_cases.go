package bigtabletest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
)

var schemaCases = []conformanceCase{
	{"schema/tables", func(t *testing.T, c *env) {
		mustDo(t, "CreateTable(a)", c.store.CreateTable(c.ctx, "a"))
		got, err := c.store.Tables(c.ctx)
		mustDo(t, "Tables", err)
		check(t, "Tables", got, []string{"a", "t"})
		if err := c.store.CreateTable(c.ctx, "a"); !errors.Is(err, bigtable.ErrExists) {
			t.Errorf("CreateTable(a) again = %v, want ErrExists", err)
		}
		mustDo(t, "DeleteTable(a)", c.store.DeleteTable(c.ctx, "a"))
		got, err = c.store.Tables(c.ctx)
		mustDo(t, "Tables", err)
		check(t, "Tables after DeleteTable(a)", got, []string{"t"})
		if err := c.store.DeleteTable(c.ctx, "a"); !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("DeleteTable(a) again = %v, want ErrNotFound", err)
		}
	}},
	{"schema/missing table", func(t *testing.T, c *env) {
		missing := c.store.Table("nope")
		if err := missing.Apply(c.ctx, "r", setA("q", 1000, "v")); !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("Apply on a missing table = %v, want ErrNotFound", err)
		}
		if _, err := missing.ReadRow(c.ctx, "r"); !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("ReadRow on a missing table = %v, want ErrNotFound", err)
		}
		err := missing.ReadRows(c.ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool { return true })
		if !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("ReadRows on a missing table = %v, want ErrNotFound", err)
		}
		if err := c.store.CreateColumnFamily(c.ctx, "nope", "A"); !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("CreateColumnFamily on a missing table = %v, want ErrNotFound", err)
		}
		if _, err := c.store.Families(c.ctx, "nope"); !errors.Is(err, bigtable.ErrNotFound) {
			t.Errorf("Families of a missing table = %v, want ErrNotFound", err)
		}
	}},
	{"schema/families", func(t *testing.T, c *env) {
		if err := c.store.CreateColumnFamily(c.ctx, "t", "A"); !errors.Is(err, bigtable.ErrExists) {
			t.Errorf("CreateColumnFamily(A) again = %v, want ErrExists", err)
		}
		p := bigtable.UnionPolicy(bigtable.MaxAgePolicy(24*time.Hour), bigtable.MaxVersionsPolicy(3))
		mustDo(t, "SetGCPolicy(A)", c.store.SetGCPolicy(c.ctx, "t", "A", p))
		fams, err := c.store.Families(c.ctx, "t")
		mustDo(t, "Families", err)
		got := map[string]string{}
		for name, fp := range fams {
			got[name] = fp.String()
		}
		want := map[string]string{"A": p.String(), "B": ""}
		if len(got) != len(want) || got["A"] != want["A"] || got["B"] != want["B"] {
			t.Errorf("Families = %q, want %q", got, want)
		}
		if err := c.store.SetGCPolicy(c.ctx, "t", "nope", bigtable.MaxVersionsPolicy(1)); !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Errorf("SetGCPolicy(nope) = %v, want ErrUnknownFamily", err)
		}
	}},
	{"schema/delete family", func(t *testing.T, c *env) {
		c.set(t, "r", "A:q@1000=a", "B:q@1000=b")
		mustDo(t, "DeleteColumnFamily(A)", c.store.DeleteColumnFamily(c.ctx, "t", "A"))
		check(t, "row after DeleteColumnFamily(A)", c.read(t, "r"), []string{"B:q@1000=b"})
		if err := c.tbl.Apply(c.ctx, "r", setA("q", 1000, "v")); !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Errorf("Apply to deleted family = %v, want ErrUnknownFamily", err)
		}
		if err := c.store.DeleteColumnFamily(c.ctx, "t", "A"); !errors.Is(err, bigtable.ErrUnknownFamily) {
			t.Errorf("DeleteColumnFamily(A) again = %v, want ErrUnknownFamily", err)
		}
		// A re-created family starts empty.
		mustDo(t, "CreateColumnFamily(A)", c.store.CreateColumnFamily(c.ctx, "t", "A"))
		check(t, "row after re-creating A", c.read(t, "r"), []string{"B:q@1000=b"})
	}},
	{"schema/gc at read", func(t *testing.T, c *env) {
		if !c.feat.GCAtRead {
			// bigtable/doc.go, Caveats: "GC is stricter" — Cloud Bigtable and
			// the emulator collect in the background, so a read may still
			// return collected cells there.
			t.Skip("store collects garbage in the background")
		}
		c.set(t, "r", "A:q@1000=old", "A:q@2000=mid", "A:q@3000=new")
		mustDo(t, "SetGCPolicy", c.store.SetGCPolicy(c.ctx, "t", "A", bigtable.MaxVersionsPolicy(2)))
		check(t, "row under MaxVersionsPolicy(2)", c.read(t, "r"), []string{"A:q@3000=new", "A:q@2000=mid"})
	}},
	{"schema/sample row keys", func(t *testing.T, c *env) {
		for _, r := range []string{"a", "b", "c"} {
			c.set(t, r, "A:q@1000=v")
		}
		keys, err := c.tbl.SampleRowKeys(c.ctx)
		mustDo(t, "SampleRowKeys", err)
		if len(keys) == 0 || keys[len(keys)-1] != "" || !slices.IsSorted(keys[:len(keys)-1]) {
			t.Errorf("SampleRowKeys = %q, want sorted keys ending in \"\"", keys)
		}
	}},
}

// setA returns a mutation setting A:qual@ts to value.
func setA(qual string, ts bigtable.Timestamp, value string) *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.Set("A", qual, ts, []byte(value))
	return m
}
