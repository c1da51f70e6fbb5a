package warcimport

import (
	"context"
	"errors"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// errFound stops a read of the store once the version sought is found.
var errFound = errors.New("found")

// resolveRevisit returns the capture a revisit record stands for: its
// own URL, date and header with the payload of the version it refers to,
// read back from w (where the earlier record of the same file, or of an
// earlier one, was stored). ok is false when w holds no such version.
func resolveRevisit(ctx context.Context, w *webtable.WebTable, rev *archive.Capture) (_ *archive.Capture, ok bool, err error) {
	key, err := urlkey.Key(rev.RefersTo)
	if err != nil {
		return nil, false, nil
	}
	var body []byte
	at := webtable.TimestampOf(rev.RefersDate)
	err = w.Captures(ctx, []urlkey.Range{{Start: key, End: key + "\x00"}}, webtable.Selection{At: at}, func(c *webtable.Capture) error {
		// NB: a version within the millisecond of the date, as WARC-Date
		// keeps milliseconds and the store microseconds.
		if d := c.Time.Sub(rev.RefersDate); d > -1e6 && d < 1e6 && c.Body != nil {
			body, ok = c.Body, true
		}
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, false, err
	}
	if !ok {
		return nil, false, nil
	}
	c := *rev
	c.Body, c.Revisit = body, false
	return &c, true, nil
}
