//go:build tools

// Package tools pins the modules the packages under construction will import,
// so go.mod and go.sum stay stable while they are written. Removed once every
// module is imported by real code.
package tools

import (
	_ "cloud.google.com/go/bigtable"
	_ "cloud.google.com/go/bigtable/bttest"
	_ "github.com/dgraph-io/badger/v4"
	_ "github.com/gocolly/colly/v2"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/temoto/robotstxt"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/html/charset"
	_ "golang.org/x/net/idna"
	_ "golang.org/x/net/publicsuffix"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/time/rate"
	_ "google.golang.org/api/option"
	_ "google.golang.org/grpc"
)
