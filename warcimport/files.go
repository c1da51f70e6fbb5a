package warcimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/webtable"
)

// Kind says why an import ended before its last file, for the program's
// exit status.
type Kind int

// The kinds of [Error].
const (
	// Damaged: a file is not a WARC file, or holds a damaged record.
	Damaged Kind = iota + 1
	// Interrupted: the import's context was cancelled (Ctrl-C).
	Interrupted
	// StoreFailed: the store failed, or a file could not be read.
	StoreFailed
)

// Error ends an import early: what happened, in one line for a person
// (Msg), its Kind, and the error of File (Err).
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

// Error is Msg.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error of File.
func (e *Error) Unwrap() error { return e.Err }

// Files imports the WARC files names into w in their order, with File,
// and returns what the import did. It stops at the first file that File
// stops in, with an *Error: the captures before the stop are stored.
func Files(ctx context.Context, w *webtable.WebTable, names []string, o Options) (Stats, error) {
	var st Stats
	for _, name := range names {
		err := File(ctx, w, name, o, &st)
		var ae *archive.Error
		switch {
		case err == nil:
			continue
		case errors.As(err, &ae), errors.Is(err, archive.ErrNotWARC):
			return st, &Error{Kind: Damaged, Msg: fmt.Sprintf("%v (the captures before it are stored)", err), Err: err}
		case ctx.Err() != nil:
			return st, &Error{Kind: Interrupted, Msg: fmt.Sprintf("stopped while reading %s; the captures read so far are stored", name), Err: err}
		default:
			return st, &Error{Kind: StoreFailed, Msg: err.Error(), Err: err}
		}
	}
	return st, nil
}
