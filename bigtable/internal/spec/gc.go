package spec

import (
	"encoding/json"
	"fmt"
	"time"
)

// GCKind names a variant of bigtable.GCPolicy.
type GCKind uint8

// The GC policy variants.
const (
	NoGC         GCKind = iota // NoGcPolicy
	MaxVersions                // MaxVersionsPolicy: Versions
	MaxAge                     // MaxAgePolicy: Age
	Union                      // UnionPolicy: Sub
	Intersection               // IntersectionPolicy: Sub
)

// GCPolicy is a bigtable.GCPolicy as data: the one data form of a policy,
// read by the translators and stored, as JSON, in package bigtable's schema.
type GCPolicy struct {
	Kind     GCKind
	Versions int
	Age      time.Duration
	Sub      []GCPolicy
}

// storedGC is the JSON a GCPolicy is stored as: exactly one field set, none
// meaning NoGC. NB: directories written by every earlier version hold this
// form; it must not change.
type storedGC struct {
	MaxVersions  *int       `json:"max_versions,omitempty"`
	MaxAgeNanos  *int64     `json:"max_age_ns,omitempty"`
	Union        []GCPolicy `json:"union,omitempty"`
	Intersection []GCPolicy `json:"intersection,omitempty"`
}

// MarshalJSON returns the stored form of p, for example {"max_versions":3}
// or {"union":[...]}; NoGC, and a Union or Intersection without members,
// is {}.
func (p GCPolicy) MarshalJSON() ([]byte, error) {
	var s storedGC
	switch p.Kind {
	case NoGC:
	case MaxVersions:
		n := p.Versions
		s.MaxVersions = &n
	case MaxAge:
		d := int64(p.Age)
		s.MaxAgeNanos = &d
	case Union:
		s.Union = p.Sub
	case Intersection:
		s.Intersection = p.Sub
	default:
		return nil, fmt.Errorf("%w: GC policy kind %d", ErrUnknownVariant, p.Kind)
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads the stored form MarshalJSON writes; null leaves p
// unchanged, and {} is NoGC.
func (p *GCPolicy) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s storedGC
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("spec: stored GC policy %s: %w", b, err)
	}
	switch {
	case s.MaxVersions != nil:
		*p = GCPolicy{Kind: MaxVersions, Versions: *s.MaxVersions}
	case s.MaxAgeNanos != nil:
		*p = GCPolicy{Kind: MaxAge, Age: time.Duration(*s.MaxAgeNanos)}
	case s.Union != nil:
		*p = GCPolicy{Kind: Union, Sub: s.Union}
	case s.Intersection != nil:
		*p = GCPolicy{Kind: Intersection, Sub: s.Intersection}
	default:
		*p = GCPolicy{Kind: NoGC}
	}
	return nil
}
