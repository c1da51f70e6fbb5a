package wire

import (
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
)

// MaxMutations is the most operations one row's mutation may hold, as in
// Cloud Bigtable.
const MaxMutations = 100_000

// Mutation translates the operations of one row's write. where names them in
// errors ("mutations", "entries[3].mutations"). No operation at all is
// refused, as Cloud Bigtable does; so are aggregate cells, which the store
// does not have.
func Mutation(ops []*btpb.Mutation, where string) (*bigtable.Mutation, error) {
	if len(ops) == 0 {
		return nil, invalidf("%s: no mutation given", where)
	}
	return mutation(ops, where)
}

// CondBranch translates a branch of a CheckAndMutateRow; no operation is nil
// (the branch does nothing).
func CondBranch(ops []*btpb.Mutation, where string) (*bigtable.Mutation, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	return mutation(ops, where)
}

func mutation(ops []*btpb.Mutation, where string) (*bigtable.Mutation, error) {
	if len(ops) > MaxMutations {
		return nil, invalidf("%s: %d mutations, at most %d allowed", where, len(ops), MaxMutations)
	}
	m := bigtable.NewMutation()
	for i, op := range ops {
		switch x := op.GetMutation().(type) {
		case *btpb.Mutation_SetCell_:
			c := x.SetCell
			m.Set(c.FamilyName, string(c.ColumnQualifier), bigtable.Timestamp(c.TimestampMicros), nonNil(c.Value))
		case *btpb.Mutation_DeleteFromColumn_:
			c := x.DeleteFromColumn
			if c.TimeRange == nil {
				m.DeleteCellsInColumn(c.FamilyName, string(c.ColumnQualifier))
				continue
			}
			start, end := c.TimeRange.StartTimestampMicros, c.TimeRange.EndTimestampMicros
			if start < 0 || end < 0 || (end != 0 && end < start) {
				return nil, invalidf("%s: bad time_range [%d, %d)", fmtIndex(where, i), start, end)
			}
			m.DeleteTimestampRange(c.FamilyName, string(c.ColumnQualifier), bigtable.Timestamp(start), bigtable.Timestamp(end))
		case *btpb.Mutation_DeleteFromFamily_:
			m.DeleteCellsInFamily(x.DeleteFromFamily.FamilyName)
		case *btpb.Mutation_DeleteFromRow_:
			m.DeleteRow()
		case nil:
			return nil, invalidf("%s: empty mutation (no operation set)", fmtIndex(where, i))
		default:
			return nil, unimplementedf("%s: %T (aggregate cells)", fmtIndex(where, i), x)
		}
	}
	return m, nil
}

// ReadModifyWrite translates read-modify-write rules.
func ReadModifyWrite(rules []*btpb.ReadModifyWriteRule) (*bigtable.ReadModifyWrite, error) {
	if len(rules) == 0 {
		return nil, invalidf("rules: no rule given")
	}
	m := bigtable.NewReadModifyWrite()
	for i, r := range rules {
		switch x := r.GetRule().(type) {
		case *btpb.ReadModifyWriteRule_AppendValue:
			m.AppendValue(r.FamilyName, string(r.ColumnQualifier), x.AppendValue)
		case *btpb.ReadModifyWriteRule_IncrementAmount:
			m.Increment(r.FamilyName, string(r.ColumnQualifier), x.IncrementAmount)
		default:
			return nil, invalidf("rules[%d]: neither append_value nor increment_amount", i)
		}
	}
	return m, nil
}
