package hooks

import (
	"context"
	"sync/atomic"
)

// Funcs are the functions package bigtable registers.
type Funcs struct {
	// SplitTablets runs one split pass over every table of a *bigtable.DB
	// now, as the background splitter does after writes, and returns when
	// it is done.
	SplitTablets func(ctx context.Context, db any) error
	// ReadCells is ReadCells below.
	ReadCells func(ctx context.Context, tbl any, rs any, filter any, limit int64, f func(r *Row) bool) error
}

var funcs atomic.Pointer[Funcs]

// Register installs package bigtable's functions. It is called once, from
// bigtable's init; a second call panics.
func Register(f Funcs) {
	if !funcs.CompareAndSwap(nil, &f) {
		panic("hooks: Register called twice")
	}
}

func get() *Funcs {
	f := funcs.Load()
	if f == nil {
		panic("hooks: package bigtable has not registered its functions")
	}
	return f
}

// SplitTablets splits, now, every tablet of db (a *bigtable.DB) that has
// grown past the store's split size, as the background splitter would
// soon after the writes that grew it.
func SplitTablets(ctx context.Context, db any) error { return get().SplitTablets(ctx, db) }
