package bigtable

import (
	"context"

	"github.com/webtable/webtable/bigtable/internal/hooks"
)

// NB: like export_spec.go, this file opens a module-internal door: the
// gRPC server reads cells without Rows (see readCells), and tests of other
// packages split tablets without waiting for the splitter. Nothing new is
// exported.

func init() {
	hooks.Register(hooks.Funcs{
		SplitTablets: func(ctx context.Context, db any) error { return db.(*DB).splitTablets(ctx) },
		ReadCells: func(ctx context.Context, tbl, rs, filter any, limit int64, f func(*hooks.Row) bool) error {
			var opts []ReadOption
			if fl := asFilter(filter); fl != nil {
				opts = append(opts, RowFilter(fl))
			}
			if limit > 0 {
				opts = append(opts, LimitRows(limit))
			}
			t := tbl.(*Table)
			rset := asRowSet(rs)
			if rset == nil {
				return t.ReadRows(ctx, rset, nil) // its nil RowSet error
			}
			_, err := t.read(ctx, rset, "", opts, nil, f)
			return err
		},
	})
}
