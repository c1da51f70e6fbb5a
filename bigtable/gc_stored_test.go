package bigtable

import (
	"encoding/json"
	"testing"
	"time"
)

// TestGCPolicyStoredForm pins the JSON a family's GC policy is stored as in
// the schema: directories written by earlier versions must keep their
// policies, so the encoding may never change, and decoding must give the
// same policy back.
func TestGCPolicyStoredForm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      GCPolicy
		stored string
		// decodesEmpty: the decoded policy is NoGcPolicy, not p.
		decodesEmpty bool
	}{
		{name: "none", p: NoGcPolicy(), stored: `{}`},
		{name: "zero versions", p: MaxVersionsPolicy(0), stored: `{"max_versions":0}`},
		{name: "versions", p: MaxVersionsPolicy(3), stored: `{"max_versions":3}`},
		{name: "age", p: MaxAgePolicy(48 * time.Hour), stored: `{"max_age_ns":172800000000000}`},
		{name: "union", p: UnionPolicy(MaxVersionsPolicy(2), MaxAgePolicy(time.Hour)),
			stored: `{"union":[{"max_versions":2},{"max_age_ns":3600000000000}]}`},
		{name: "intersection", p: IntersectionPolicy(MaxVersionsPolicy(1), NoGcPolicy()),
			stored: `{"intersection":[{"max_versions":1},{}]}`},
		{name: "nested", p: UnionPolicy(IntersectionPolicy(MaxVersionsPolicy(5), MaxAgePolicy(time.Minute)), MaxVersionsPolicy(9)),
			stored: `{"union":[{"intersection":[{"max_versions":5},{"max_age_ns":60000000000}]},{"max_versions":9}]}`},
		// NB: an empty union collects nothing; it has always been stored
		// as no policy at all.
		{name: "empty union", p: UnionPolicy(), stored: `{}`, decodesEmpty: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(marshalPolicy(tc.p)); got != tc.stored {
				t.Errorf("marshalPolicy(%q) = %s, want %s", tc.p, got, tc.stored)
			}
			table, _ := json.Marshal(storedTable{ID: 7, Families: map[string]json.RawMessage{"f": json.RawMessage(tc.stored)}})
			ts, err := decodeSchema("t", table)
			if err != nil {
				t.Fatalf("decodeSchema(%s): %v", table, err)
			}
			want := tc.p.String()
			if tc.decodesEmpty {
				want = ""
			}
			if got := ts.families["f"].policy.String(); got != want {
				t.Errorf("policy stored as %s decodes to %q, want %q", tc.stored, got, want)
			}
		})
	}
}

// TestGCPolicyStoredNull: a family stored with a null policy (or null
// members) has none, as before.
func TestGCPolicyStoredNull(t *testing.T) {
	for _, stored := range []string{`null`, `{"union":[null,{"max_versions":2}]}`} {
		table := []byte(`{"id":1,"families":{"f":` + stored + `}}`)
		ts, err := decodeSchema("t", table)
		if err != nil {
			t.Fatalf("decodeSchema(%s): %v", table, err)
		}
		if got := ts.families["f"].policy; got == nil {
			t.Errorf("policy stored as %s decodes to nil", stored)
		}
	}
	if _, err := decodeSchema("t", []byte(`{"id":1,"families":{"f":{"max_versions":"x"}}}`)); err == nil {
		t.Errorf("decodeSchema of a version count that is a string: no error")
	}
}
