package webtable

import "github.com/webtable/webtable/bigtable"

// MaxBody is the largest page body a version can hold: one cell of the
// store (Cloud Bigtable's limit too). A crawl keeps at most this much of a
// page (crawl --max-body).
const MaxBody = bigtable.MaxValueSize
