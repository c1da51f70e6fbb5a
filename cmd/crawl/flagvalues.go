package main

import "github.com/webtable/webtable/internal/flagvalue"

// The flag values crawl reads (and its tests call) are internal/flagvalue's.
var (
	parseArgs   = flagvalue.ParseArgs
	parseShard  = flagvalue.ParseShard
	parseBytes  = flagvalue.ParseBytes
	formatBytes = flagvalue.FormatBytes
)
