package crawlrun

import (
	"context"
	"errors"

	"github.com/webtable/webtable/crawler"
)

// Kind says why a run ended before its crawl was done, for the program's
// exit status: a run of this package, a WARC import (warcimport) or the
// run of a shard (shardrun).
type Kind int

// The kinds of [Error].
const (
	// StoreFailed: the store failed under the crawl, which stopped.
	StoreFailed Kind = iota + 1
	// Usage: the configuration or a seed cannot be used.
	Usage
	// Interrupted: the run's context was cancelled (Ctrl-C); the pages in
	// flight were stored, and running it again resumes the crawl.
	Interrupted
	// ShardGone: for a shard of a crawl split between processes
	// (shardrun), another shard has been silent for longer than its
	// timeout before the crawl was finished.
	ShardGone
)

// Error ends a run early: what happened, in one line for a person (Msg),
// its Kind, and the error it comes from (Err, which a *SetupError may be;
// nil when there is none).
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

// Error is Msg.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// ended is the error of a run under ctx that ended with err: nil, or an
// *Error of the kind err is.
func ended(ctx context.Context, err error) error {
	var se *SetupError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) || errors.Is(err, crawler.ErrSeed) || errors.Is(err, crawler.ErrConfig):
		return &Error{Kind: Usage, Msg: err.Error(), Err: err}
	case ctx.Err() != nil && !errors.Is(err, crawler.ErrStore):
		return &Error{Kind: Interrupted, Msg: "stopped; pages in flight were stored, and running the same command again resumes the crawl", Err: err}
	default:
		return &Error{Kind: StoreFailed, Msg: "the crawl stopped because the store failed: " + err.Error(), Err: err}
	}
}
