package bigtable

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
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
	spec() gcSpec
}

// MaxVersionsPolicy returns a policy that collects all versions of a column
// except the newest n.
func MaxVersionsPolicy(n int) GCPolicy { return maxVersionsPolicy(n) }

type maxVersionsPolicy int

func (p maxVersionsPolicy) String() string                          { return fmt.Sprintf("versions() > %d", int(p)) }
func (p maxVersionsPolicy) collects(index int, _, _ Timestamp) bool { return index >= int(p) }
func (p maxVersionsPolicy) spec() gcSpec {
	n := int(p)
	return gcSpec{MaxVersions: &n}
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

func (p maxAgePolicy) spec() gcSpec {
	d := int64(p)
	return gcSpec{MaxAgeNanos: &d}
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
func (p unionPolicy) spec() gcSpec { return gcSpec{Union: specs(p)} }

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
func (p intersectionPolicy) spec() gcSpec { return gcSpec{Intersection: specs(p)} }

// NoGcPolicy returns the policy that collects nothing, the default of every
// family. Its String is empty, as in Cloud Bigtable.
func NoGcPolicy() GCPolicy { return noGcPolicy{} }

type noGcPolicy struct{}

func (noGcPolicy) String() string                          { return "" }
func (noGcPolicy) collects(int, Timestamp, Timestamp) bool { return false }
func (noGcPolicy) spec() gcSpec                            { return gcSpec{} }

func joinPolicies(ps []GCPolicy, sep string) string {
	ss := make([]string, len(ps))
	for i, p := range ps {
		ss[i] = p.String()
	}
	return "(" + strings.Join(ss, sep) + ")"
}

func specs(ps []GCPolicy) []gcSpec {
	out := make([]gcSpec, len(ps))
	for i, p := range ps {
		out[i] = p.spec()
	}
	return out
}

// gcSpec is the stored (JSON) form of a GCPolicy. Exactly one field is set;
// none means NoGcPolicy.
type gcSpec struct {
	MaxVersions  *int     `json:"max_versions,omitempty"`
	MaxAgeNanos  *int64   `json:"max_age_ns,omitempty"`
	Union        []gcSpec `json:"union,omitempty"`
	Intersection []gcSpec `json:"intersection,omitempty"`
}

func (s gcSpec) policy() GCPolicy {
	switch {
	case s.MaxVersions != nil:
		return maxVersionsPolicy(*s.MaxVersions)
	case s.MaxAgeNanos != nil:
		return maxAgePolicy(*s.MaxAgeNanos)
	case s.Union != nil:
		return unionPolicy(policies(s.Union))
	case s.Intersection != nil:
		return intersectionPolicy(policies(s.Intersection))
	}
	return noGcPolicy{}
}

func policies(ss []gcSpec) []GCPolicy {
	out := make([]GCPolicy, len(ss))
	for i, s := range ss {
		out[i] = s.policy()
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

func marshalPolicy(p GCPolicy) json.RawMessage {
	b, _ := json.Marshal(p.spec())
	return b
}
