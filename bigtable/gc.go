package bigtable

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// A GCPolicy says which cells of a column family are garbage: collected cells
// are never returned by a read and are removed from disk, on the next write to
// their column or by (*DB).GC. Set one with (*DB).SetGCPolicy. The variants
// are MaxVersionsPolicy, MaxAgePolicy, UnionPolicy, IntersectionPolicy and
// NoGcPolicy, as in Cloud Bigtable.
type GCPolicy interface {
	String() string
	// collects reports whether the cell at position index among its column's
	// versions (0 = newest), written at ts, is garbage at time now.
	collects(index int, ts, now Timestamp) bool
	// describe returns the policy as data: what the translators read and
	// what the schema stores (see policyOf for the way back).
	describe() spec.GCPolicy
}

// MaxVersionsPolicy returns a policy that collects all versions of a column
// except the newest n.
func MaxVersionsPolicy(n int) GCPolicy { return maxVersionsPolicy(n) }

type maxVersionsPolicy int

func (p maxVersionsPolicy) String() string                          { return fmt.Sprintf("versions() > %d", int(p)) }
func (p maxVersionsPolicy) collects(index int, _, _ Timestamp) bool { return index >= int(p) }
func (p maxVersionsPolicy) describe() spec.GCPolicy {
	return spec.GCPolicy{Kind: spec.MaxVersions, Versions: int(p)}
}

// MaxAgePolicy returns a policy that collects cells whose timestamp is older
// than d before the current time.
func MaxAgePolicy(d time.Duration) GCPolicy { return maxAgePolicy(d) }

type maxAgePolicy time.Duration

func (p maxAgePolicy) String() string {
	d := time.Duration(p)
	for _, u := range []struct {
		d      time.Duration
		suffix string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}} {
		if d%u.d == 0 {
			return fmt.Sprintf("age() > %d%s", d/u.d, u.suffix)
		}
	}
	return fmt.Sprintf("age() > %d", d/time.Microsecond)
}

func (p maxAgePolicy) collects(_ int, ts, now Timestamp) bool {
	return ts < now-Timestamp(time.Duration(p)/time.Microsecond)
}

func (p maxAgePolicy) describe() spec.GCPolicy {
	return spec.GCPolicy{Kind: spec.MaxAge, Age: time.Duration(p)}
}

// UnionPolicy returns a policy that collects a cell when any of sub does.
// With no sub-policies it collects nothing.
func UnionPolicy(sub ...GCPolicy) GCPolicy { return unionPolicy(sub) }

type unionPolicy []GCPolicy

func (p unionPolicy) String() string { return joinPolicies(p, " || ") }
func (p unionPolicy) collects(index int, ts, now Timestamp) bool {
	for _, s := range p {
		if s.collects(index, ts, now) {
			return true
		}
	}
	return false
}
func (p unionPolicy) describe() spec.GCPolicy {
	return spec.GCPolicy{Kind: spec.Union, Sub: describePolicies(p)}
}

// IntersectionPolicy returns a policy that collects a cell when all of sub do.
// With no sub-policies it collects nothing (not everything).
func IntersectionPolicy(sub ...GCPolicy) GCPolicy { return intersectionPolicy(sub) }

type intersectionPolicy []GCPolicy

func (p intersectionPolicy) String() string { return joinPolicies(p, " && ") }
func (p intersectionPolicy) collects(index int, ts, now Timestamp) bool {
	if len(p) == 0 {
		return false
	}
	for _, s := range p {
		if !s.collects(index, ts, now) {
			return false
		}
	}
	return true
}
func (p intersectionPolicy) describe() spec.GCPolicy {
	return spec.GCPolicy{Kind: spec.Intersection, Sub: describePolicies(p)}
}

// NoGcPolicy returns the policy that collects nothing, the default of every
// family. Its String is empty, as in Cloud Bigtable.
func NoGcPolicy() GCPolicy { return noGcPolicy{} }

type noGcPolicy struct{}

func (noGcPolicy) String() string                          { return "" }
func (noGcPolicy) collects(int, Timestamp, Timestamp) bool { return false }
func (noGcPolicy) describe() spec.GCPolicy                 { return spec.GCPolicy{Kind: spec.NoGC} }

func joinPolicies(ps []GCPolicy, sep string) string {
	ss := make([]string, len(ps))
	for i, p := range ps {
		ss[i] = p.String()
	}
	return "(" + strings.Join(ss, sep) + ")"
}

func describePolicies(ps []GCPolicy) []spec.GCPolicy {
	out := make([]spec.GCPolicy, len(ps))
	for i, p := range ps {
		out[i] = p.describe()
	}
	return out
}

// policyOf is the policy s describes, the inverse of describe. A kind it
// does not know collects nothing: spec.GCPolicy's UnmarshalJSON yields only
// known kinds.
func policyOf(s spec.GCPolicy) GCPolicy {
	switch s.Kind {
	case spec.MaxVersions:
		return maxVersionsPolicy(s.Versions)
	case spec.MaxAge:
		return maxAgePolicy(s.Age)
	case spec.Union:
		return unionPolicy(policiesOf(s.Sub))
	case spec.Intersection:
		return intersectionPolicy(policiesOf(s.Sub))
	}
	return noGcPolicy{}
}

func policiesOf(ss []spec.GCPolicy) []GCPolicy {
	out := make([]GCPolicy, len(ss))
	for i, s := range ss {
		out[i] = policyOf(s)
	}
	return out
}

// validatePolicy rejects negative version counts and ages, and nil members.
func validatePolicy(p GCPolicy) error {
	switch p := p.(type) {
	case nil:
		return fmt.Errorf("%w: nil GC policy", ErrInvalidMutation)
	case maxVersionsPolicy:
		if p < 0 {
			return fmt.Errorf("bigtable: invalid GC policy %q: negative version count", p.String())
		}
	case maxAgePolicy:
		if p < 0 {
			return fmt.Errorf("bigtable: invalid GC policy %q: negative age", p.String())
		}
	case unionPolicy:
		for _, s := range p {
			if err := validatePolicy(s); err != nil {
				return err
			}
		}
	case intersectionPolicy:
		for _, s := range p {
			if err := validatePolicy(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasAge reports whether p involves a MaxAgePolicy.
func hasAge(p GCPolicy) bool {
	switch p := p.(type) {
	case maxAgePolicy:
		return true
	case unionPolicy:
		return slices.ContainsFunc(p, hasAge)
	case intersectionPolicy:
		return slices.ContainsFunc(p, hasAge)
	}
	return false
}

// isNoGC reports whether p never collects anything, so reads may skip it.
func isNoGC(p GCPolicy) bool {
	switch p := p.(type) {
	case nil, noGcPolicy:
		return true
	case unionPolicy:
		for _, s := range p {
			if !isNoGC(s) {
				return false
			}
		}
		return true
	case intersectionPolicy:
		if len(p) == 0 {
			return true
		}
		for _, s := range p {
			if isNoGC(s) {
				return true
			}
		}
	}
	return false
}

// marshalPolicy returns the stored (JSON) form of p; see spec.GCPolicy's
// MarshalJSON.
func marshalPolicy(p GCPolicy) json.RawMessage {
	b, _ := json.Marshal(p.describe()) // NB: describe yields only known kinds, which always marshal
	return b
}
