package warcimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawlrun"
	"github.com/webtable/webtable/webtable"
)

// Files imports the WARC files names into w in their order, with File,
// and returns what the import did. It stops at the first file that File
// stops in, with a *crawlrun.Error saying why, as a crawl does: Usage for
// a file that is not WARC or holds a damaged record, Interrupted when ctx
// is cancelled, StoreFailed when the store fails or a file cannot be read.
// The captures before the stop are stored.
func Files(ctx context.Context, w *webtable.WebTable, names []string, o Options) (Stats, error) {
	var st Stats
	for _, name := range names {
		err := File(ctx, w, name, o, &st)
		var ae *archive.Error
		switch {
		case err == nil:
			continue
		case errors.As(err, &ae), errors.Is(err, archive.ErrNotWARC):
			return st, &crawlrun.Error{Kind: crawlrun.Usage, Msg: fmt.Sprintf("%v (the captures before it are stored)", err), Err: err}
		case ctx.Err() != nil:
			return st, &crawlrun.Error{Kind: crawlrun.Interrupted, Msg: fmt.Sprintf("stopped while reading %s; the captures read so far are stored", name), Err: err}
		default:
			return st, &crawlrun.Error{Kind: crawlrun.StoreFailed, Msg: err.Error(), Err: err}
		}
	}
	return st, nil
}
