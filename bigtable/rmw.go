package bigtable

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// ReadModifyWrite is a set of read-modify-write rules for one row, applied
// atomically in order by (*Table).ApplyReadModifyWrite. Each rule reads the
// newest visible version of its column and writes a new version at the
// current time (or just after the old version's timestamp, if that is in the
// future).
type ReadModifyWrite struct {
	rules []rmwRule
}

type rmwRule struct {
	family, qualifier string
	appendValue       []byte
	delta             int64
	increment         bool
}

// column is a family and qualifier: the columns a ReadModifyWrite wrote.
type column struct{ family, qualifier string }

// NewReadModifyWrite returns an empty ReadModifyWrite.
func NewReadModifyWrite() *ReadModifyWrite { return new(ReadModifyWrite) }

// AppendValue appends v to the newest value of family:qualifier (an absent
// cell counts as empty).
func (m *ReadModifyWrite) AppendValue(family, qualifier string, v []byte) {
	m.rules = append(m.rules, rmwRule{family: family, qualifier: qualifier, appendValue: v})
}

// Increment adds delta to the newest value of family:qualifier, read as a
// 64-bit big-endian two's-complement integer (an absent cell counts as 0).
// A value of another length fails with ErrInvalidIncrement.
func (m *ReadModifyWrite) Increment(family, qualifier string, delta int64) {
	m.rules = append(m.rules, rmwRule{family: family, qualifier: qualifier, delta: delta, increment: true})
}

// ApplyReadModifyWrite applies m to row atomically and returns the new cells
// it wrote: one per column touched, with the final value. Concurrent callers
// on the same row are serialised, so no update is lost.
func (t *Table) ApplyReadModifyWrite(ctx context.Context, row string, m *ReadModifyWrite) (Row, error) {
	ts, err := t.db.enter(ctx, t.name, true)
	if err != nil {
		return nil, err
	}
	defer t.db.opMu.RUnlock()
	if err := checkRowKey(row); err != nil {
		return nil, err
	}
	if err := m.check(ts, row, t.name); err != nil {
		return nil, err
	}
	mu := t.db.rowLock(ts.id, row)
	mu.Lock()
	defer mu.Unlock()
	var result Row
	var bytesWritten int64
	err = t.db.update(func(txn *badger.Txn) error {
		now := Now()
		result = Row{}
		written := map[column]ReadItem{}
		var order []column
		w := writer{txn: txn, ts: ts, row: row, now: now}
		defer func() { bytesWritten = w.written }()
		for _, r := range m.rules {
			col := column{r.family, r.qualifier}
			prevTS, prev, found, err := latestCell(txn, ts, row, r.family, r.qualifier, now)
			if err != nil {
				return err
			}
			cellTS := now
			if found && prevTS > cellTS {
				cellTS = prevTS
			}
			v, err := r.newValue(prev, found)
			if err != nil {
				return err
			}
			if err := w.apply([]mutOp{{kind: opSet, family: r.family, qualifier: r.qualifier, ts: cellTS, value: v}}); err != nil {
				return err
			}
			if _, ok := written[col]; !ok {
				order = append(order, col)
			}
			written[col] = ReadItem{Row: row, Column: r.family + ":" + r.qualifier, Timestamp: cellTS, Value: v}
		}
		slices.SortFunc(order, func(a, b column) int {
			if a.family != b.family {
				return cmp.Compare(a.family, b.family)
			}
			return cmp.Compare(a.qualifier, b.qualifier)
		})
		for _, c := range order {
			result[c.family] = append(result[c.family], written[c])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bigtable: read-modify-write of row %q of table %q: %w", row, t.name, err)
	}
	t.db.noteWrite(ts, row, bytesWritten)
	return result, nil
}

// check reports an empty m, or a rule of m that names a family table does
// not declare or a qualifier over MaxQualifierSize.
func (m *ReadModifyWrite) check(ts *tableSchema, row, table string) error {
	if m == nil || len(m.rules) == 0 {
		return fmt.Errorf("%w: no read-modify-write rules (row %q of table %q)", ErrInvalidMutation, row, table)
	}
	for _, r := range m.rules {
		if _, err := ts.family(r.family); err != nil {
			return err
		}
		if len(r.qualifier) > MaxQualifierSize {
			return fmt.Errorf("%w: %d bytes in family %q, limit %d", ErrInvalidQualifier, len(r.qualifier), r.family, MaxQualifierSize)
		}
	}
	return nil
}

// newValue returns the value the rule writes over prev, the newest value
// of its column (found false: there is none).
func (r *rmwRule) newValue(prev []byte, found bool) ([]byte, error) {
	if r.increment {
		var n int64
		if found {
			if len(prev) != 8 {
				return nil, fmt.Errorf("%w: %s:%q holds %d bytes", ErrInvalidIncrement, r.family, r.qualifier, len(prev))
			}
			n = int64(binary.BigEndian.Uint64(prev))
		}
		return binary.BigEndian.AppendUint64(nil, uint64(n+r.delta)), nil
	}
	v := append(slices.Clip(prev), r.appendValue...)
	if len(v) > MaxValueSize {
		return nil, fmt.Errorf("%w: %d bytes in %s:%q, limit %d", ErrValueTooLarge, len(v), r.family, r.qualifier, MaxValueSize)
	}
	return v, nil
}

// latestCell returns the newest version of a column that its family's GC
// policy does not collect.
func latestCell(txn *badger.Txn, ts *tableSchema, row, family, qualifier string, now Timestamp) (Timestamp, []byte, bool, error) {
	f := ts.families[family]
	it := txn.NewIterator(badger.IteratorOptions{Prefix: appendColumnKey(nil, ts.id, row, family, qualifier)})
	defer it.Close()
	index := 0
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		_, cts, err := decodeTimestamp(k[len(k)-tsLen:])
		if err != nil {
			return 0, nil, false, err
		}
		i := index
		index++
		if f != nil && f.gc && f.policy.collects(i, cts, now) {
			continue
		}
		v, err := it.Item().ValueCopy(nil)
		if err != nil {
			return 0, nil, false, err
		}
		return cts, v, true, nil
	}
	return 0, nil, false, nil
}
