package spec

import (
	"errors"
	"sync/atomic"
)

// ErrUnknownVariant: a value of a sealed bigtable type that the hooks do not
// know how to describe.
var ErrUnknownVariant = errors.New("spec: unknown variant")

// Hooks are the conversion functions package bigtable registers. Each takes
// a value of the bigtable type its name says (as any) and panics on any
// other type.
type Hooks struct {
	Filter          func(f any) (*Filter, error)          // bigtable.Filter; nil gives nil
	RowSet          func(rs any) (RowSet, error)          // bigtable.RowSet
	Mutation        func(m any) (*Mutation, error)        // *bigtable.Mutation; nil gives nil
	ApplyOptions    func(opts any) (ApplyOptions, error)  // []bigtable.ApplyOption
	ReadOptions     func(opts any) (ReadSettings, error)  // []bigtable.ReadOption
	GCPolicy        func(p any) (GCPolicy, error)         // bigtable.GCPolicy
	ReadModifyWrite func(m any) (*ReadModifyWrite, error) // *bigtable.ReadModifyWrite; nil gives nil
}

var hooks atomic.Pointer[Hooks]

// Register installs package bigtable's hooks. It is called once, from
// bigtable's init; a second call panics.
func Register(h Hooks) {
	if !hooks.CompareAndSwap(nil, &h) {
		panic("spec: Register called twice")
	}
}

func get() *Hooks {
	h := hooks.Load()
	if h == nil {
		panic("spec: package bigtable has not registered its hooks")
	}
	return h
}

// FilterOf describes a bigtable.Filter; a nil Filter gives nil.
func FilterOf(f any) (*Filter, error) { return get().Filter(f) }

// RowSetOf describes a bigtable.RowSet; a nil RowSet gives Kind NoRowSet.
func RowSetOf(rs any) (RowSet, error) { return get().RowSet(rs) }

// MutationOf describes a *bigtable.Mutation; nil gives nil.
func MutationOf(m any) (*Mutation, error) { return get().Mutation(m) }

// ApplyOptionsOf describes a []bigtable.ApplyOption.
func ApplyOptionsOf(opts any) (ApplyOptions, error) { return get().ApplyOptions(opts) }

// ReadOptionsOf describes a []bigtable.ReadOption.
func ReadOptionsOf(opts any) (ReadSettings, error) { return get().ReadOptions(opts) }

// GCPolicyOf describes a bigtable.GCPolicy; nil is NoGC.
func GCPolicyOf(p any) (GCPolicy, error) { return get().GCPolicy(p) }

// ReadModifyWriteOf describes a *bigtable.ReadModifyWrite; nil gives nil.
func ReadModifyWriteOf(m any) (*ReadModifyWrite, error) { return get().ReadModifyWrite(m) }
