package wire

import (
	"fmt"

	adminpb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
	"google.golang.org/protobuf/types/known/durationpb"
)

// GCPolicy translates a family's GC rule; nil (no rule) is NoGcPolicy.
func GCPolicy(r *adminpb.GcRule) (bigtable.GCPolicy, error) {
	if r == nil || r.Rule == nil {
		return bigtable.NoGcPolicy(), nil
	}
	switch x := r.Rule.(type) {
	case *adminpb.GcRule_MaxNumVersions:
		if x.MaxNumVersions < 0 {
			return nil, invalidf("gc_rule: max_num_versions %d is negative", x.MaxNumVersions)
		}
		return bigtable.MaxVersionsPolicy(int(x.MaxNumVersions)), nil
	case *adminpb.GcRule_MaxAge:
		if err := x.MaxAge.CheckValid(); err != nil {
			return nil, invalidf("gc_rule: max_age: %v", err)
		}
		d := x.MaxAge.AsDuration()
		if d < 0 {
			return nil, invalidf("gc_rule: max_age %v is negative", d)
		}
		return bigtable.MaxAgePolicy(d), nil
	case *adminpb.GcRule_Union_:
		subs, err := gcPolicies(x.Union.GetRules())
		return bigtable.UnionPolicy(subs...), err
	case *adminpb.GcRule_Intersection_:
		subs, err := gcPolicies(x.Intersection.GetRules())
		return bigtable.IntersectionPolicy(subs...), err
	}
	return nil, unimplementedf("gc_rule: %T", r.Rule)
}

func gcPolicies(rs []*adminpb.GcRule) ([]bigtable.GCPolicy, error) {
	out := make([]bigtable.GCPolicy, len(rs))
	for i, r := range rs {
		var err error
		if out[i], err = GCPolicy(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GCRule translates a family's GC policy into the rule GetTable shows; no
// GC is nil, as Cloud Bigtable sends it.
func GCRule(p bigtable.GCPolicy) (*adminpb.GcRule, error) {
	s, err := spec.GCPolicyOf(p)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	return gcRule(s), nil
}

func gcRule(s spec.GCPolicy) *adminpb.GcRule {
	switch s.Kind {
	case spec.MaxVersions:
		return &adminpb.GcRule{Rule: &adminpb.GcRule_MaxNumVersions{MaxNumVersions: int32(s.Versions)}}
	case spec.MaxAge:
		return &adminpb.GcRule{Rule: &adminpb.GcRule_MaxAge{MaxAge: durationpb.New(s.Age)}}
	case spec.Union:
		return &adminpb.GcRule{Rule: &adminpb.GcRule_Union_{Union: &adminpb.GcRule_Union{Rules: gcRules(s.Sub)}}}
	case spec.Intersection:
		for _, sub := range s.Sub {
			if gcRule(sub) == nil {
				return nil // a member that never collects: neither does the whole
			}
		}
		return &adminpb.GcRule{Rule: &adminpb.GcRule_Intersection_{Intersection: &adminpb.GcRule_Intersection{Rules: gcRules(s.Sub)}}}
	}
	return nil
}

func gcRules(ss []spec.GCPolicy) []*adminpb.GcRule {
	out := make([]*adminpb.GcRule, 0, len(ss))
	for _, s := range ss {
		if r := gcRule(s); r != nil {
			out = append(out, r)
		}
	}
	return out
}
