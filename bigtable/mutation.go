package bigtable

import (
	"fmt"
	"slices"

	"github.com/webtable/webtable/internal/keyspace"
)

// Limits on what a mutation may write. Breaking one fails the whole
// mutation with a wrapped sentinel error and writes nothing.
const (
	// MaxRowKeySize is the longest row key, in bytes (keys are 1 byte or
	// more): 4 KiB, as in Cloud Bigtable.
	MaxRowKeySize = keyspace.MaxKeyLen
	// MaxQualifierSize is the longest column qualifier, in bytes, as in
	// Cloud Bigtable. The empty qualifier is allowed.
	MaxQualifierSize = 16 << 10
	// MaxValueSize is the largest cell value, in bytes.
	MaxValueSize = 100 << 20
)

// Mutation is a set of changes to one row, applied atomically and in order
// by (*Table).Apply or ApplyBulk. Build it with NewMutation and its methods,
// or make a conditional one with NewCondMutation.
type Mutation struct {
	ops []mutOp

	isCond        bool
	cond          Filter
	mtrue, mfalse *Mutation
}

type opKind uint8

const (
	opSet opKind = iota
	opDeleteColumn
	opDeleteRange
	opDeleteFamily
	opDeleteRow
)

type mutOp struct {
	kind              opKind
	family, qualifier string
	ts, start, end    Timestamp
	value             []byte
	unpruned          bool // a Set that skips pruning (SetOnlyVersion), a delete that reads nothing (DeleteOnlyVersion)
}

// NewMutation returns an empty mutation.
func NewMutation() *Mutation { return new(Mutation) }

// NewCondMutation returns a conditional mutation: when Apply runs it, it
// applies mtrue if cond passes at least one cell of the row, and mfalse
// otherwise, atomically with the check. A nil cond tests whether the row has
// any cell; a nil mtrue or mfalse does nothing. Conditional mutations do not
// nest and cannot be used with ApplyBulk. Use GetCondMutationResult to learn
// which branch ran.
func NewCondMutation(cond Filter, mtrue, mfalse *Mutation) *Mutation {
	return &Mutation{isCond: true, cond: cond, mtrue: mtrue, mfalse: mfalse}
}

// Grow makes room for n more operations, as strings.Builder.Grow does: a
// caller that knows how many cells it writes spares the copies of a
// growing mutation (a crawled page's row is some 20). It is not part of
// Cloud Bigtable's API, where it would have nothing to do.
func (m *Mutation) Grow(n int) { m.ops = slices.Grow(m.ops, n) }

// Set writes value to the cell family:qualifier at timestamp ts, replacing a
// cell with the same timestamp. ts must be 0 or more, or ServerTime. The
// mutation keeps value; do not change it before Apply returns.
func (m *Mutation) Set(family, qualifier string, ts Timestamp, value []byte) {
	m.ops = append(m.ops, mutOp{kind: opSet, family: family, qualifier: qualifier, ts: ts, value: value})
}

// SetOnlyVersion is Set with the caller's word that the column holds no
// version but the one written (a row just made, or a column only ever
// written at one timestamp), so it needs no pruning. The write then skips
// reading the column's stored versions to delete those its family's GC
// policy collects, a seek per column. A wrong word costs disk, not
// correctness: the versions the policy collects stay on disk until the
// column's next Set or a GC pass (DB.GC), and reads never return them.
// Cloud Bigtable, which collects garbage on its own, writes it as Set.
func (m *Mutation) SetOnlyVersion(family, qualifier string, ts Timestamp, value []byte) {
	m.ops = append(m.ops, mutOp{kind: opSet, family: family, qualifier: qualifier, ts: ts, value: value, unpruned: true})
}

// DeleteCellsInColumn deletes every version of family:qualifier.
func (m *Mutation) DeleteCellsInColumn(family, qualifier string) {
	m.ops = append(m.ops, mutOp{kind: opDeleteColumn, family: family, qualifier: qualifier})
}

// DeleteTimestampRange deletes the versions of family:qualifier whose
// timestamps are in [start, end); end 0 means no upper bound. Unlike Cloud
// Bigtable, the bounds are not truncated to milliseconds.
func (m *Mutation) DeleteTimestampRange(family, qualifier string, start, end Timestamp) {
	m.ops = append(m.ops, mutOp{kind: opDeleteRange, family: family, qualifier: qualifier, start: start, end: end})
}

// DeleteOnlyVersion deletes the version of family:qualifier at timestamp
// ts (DeleteTimestampRange of ts alone), with the caller's word that the
// column holds no other version its family's GC policy would hide (a
// column only ever written at ts, or a row just made). The delete then
// reads nothing: it writes a deletion for that one cell, where the other
// deletes read the row's cells to find what to delete (a seek each). A
// wrong word brings such a hidden version into view once the deleted one
// is gone. Cloud Bigtable, which keeps timestamps to the millisecond,
// deletes the versions of ts's millisecond.
func (m *Mutation) DeleteOnlyVersion(family, qualifier string, ts Timestamp) {
	m.ops = append(m.ops, mutOp{kind: opDeleteRange, family: family, qualifier: qualifier, start: ts, end: ts + 1, unpruned: true})
}

// DeleteCellsInFamily deletes every cell of family in the row.
func (m *Mutation) DeleteCellsInFamily(family string) {
	m.ops = append(m.ops, mutOp{kind: opDeleteFamily, family: family})
}

// DeleteRow deletes every cell of the row.
func (m *Mutation) DeleteRow() { m.ops = append(m.ops, mutOp{kind: opDeleteRow}) }

// An ApplyOption is an optional argument to Apply. The interface is sealed.
type ApplyOption interface{ after(matched bool) }

type condResult struct{ matched *bool }

func (o condResult) after(matched bool) {
	if o.matched != nil {
		*o.matched = matched
	}
}

// GetCondMutationResult returns an ApplyOption that stores in *matched
// whether a conditional mutation's filter passed a cell (so mtrue ran). It
// is left alone for plain mutations and when Apply fails.
func GetCondMutationResult(matched *bool) ApplyOption { return condResult{matched} }

// checkRowKey validates a row key.
func checkRowKey(row string) error {
	if len(row) == 0 || len(row) > MaxRowKeySize {
		return fmt.Errorf("%w: %d bytes, want 1 to %d", ErrInvalidRowKey, len(row), MaxRowKeySize)
	}
	return nil
}

// check validates a plain mutation against a table's schema.
func (m *Mutation) check(ts *tableSchema) error {
	if m == nil {
		return nil
	}
	if m.isCond {
		return fmt.Errorf("%w: conditional mutations cannot be nested", ErrInvalidMutation)
	}
	for i := range m.ops {
		op := &m.ops[i]
		if op.kind == opDeleteRow {
			continue
		}
		if _, err := ts.family(op.family); err != nil {
			return err
		}
		if op.kind == opDeleteFamily {
			continue
		}
		if len(op.qualifier) > MaxQualifierSize {
			return fmt.Errorf("%w: %d bytes in family %q, limit %d", ErrInvalidQualifier, len(op.qualifier), op.family, MaxQualifierSize)
		}
		switch op.kind {
		case opSet:
			if op.ts < ServerTime {
				return fmt.Errorf("%w: %d in %s:%q; want 0 or more, or ServerTime", ErrInvalidTimestamp, op.ts, op.family, op.qualifier)
			}
			if len(op.value) > MaxValueSize {
				return fmt.Errorf("%w: %d bytes in %s:%q, limit %d", ErrValueTooLarge, len(op.value), op.family, op.qualifier, MaxValueSize)
			}
		case opDeleteRange:
			if op.start < 0 || op.end < 0 || (op.end != 0 && op.start >= op.end) {
				return fmt.Errorf("%w: range [%d, %d) in %s:%q", ErrInvalidTimestamp, op.start, op.end, op.family, op.qualifier)
			}
		}
	}
	return nil
}

// checkTop validates a mutation passed to Apply, conditional or not.
func (m *Mutation) checkTop(ts *tableSchema) error {
	if m == nil {
		return fmt.Errorf("%w: nil mutation", ErrInvalidMutation)
	}
	if !m.isCond {
		if len(m.ops) == 0 {
			return fmt.Errorf("%w: no operations", ErrInvalidMutation)
		}
		return m.check(ts)
	}
	if err := m.mtrue.check(ts); err != nil {
		return err
	}
	return m.mfalse.check(ts)
}
