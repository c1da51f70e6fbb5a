package spec_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// TestGCPolicyJSONUnknownKind: a kind the stored form has no field for is
// an error, never stored as "no policy" (which would drop the family's GC).
func TestGCPolicyJSONUnknownKind(t *testing.T) {
	_, err := json.Marshal(spec.GCPolicy{Kind: spec.Union, Sub: []spec.GCPolicy{{Kind: 200}}})
	if !errors.Is(err, spec.ErrUnknownVariant) {
		t.Errorf("json.Marshal of a union holding kind 200: err = %v, want ErrUnknownVariant", err)
	}
}

// TestGCPolicyJSONBad: stored JSON of the wrong shape is an error naming it.
func TestGCPolicyJSONBad(t *testing.T) {
	var p spec.GCPolicy
	if err := json.Unmarshal([]byte(`{"union":[{"max_age_ns":"1h"}]}`), &p); err == nil {
		t.Errorf("json.Unmarshal of an age that is a string: no error, got %+v", p)
	}
}
