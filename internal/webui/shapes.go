package webui

import (
	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/webtable"
)

// The JSON shapes below are those "query --json" prints, field for field
// (cmd/query's TestServeJSONMatchesQuery holds them together).

// The shapes "query --json" prints; package jsonshape holds them for both.
type (
	jsonRow     = jsonshape.Row
	jsonVersion = jsonshape.Version
	jsonFailure = jsonshape.Failure
	jsonTablet  = jsonshape.Tablet
)

func toJSONRow(r webtable.Row) jsonRow { return jsonshape.RowOf(r, false) }

var (
	toJSONVersion = jsonshape.VersionOf
	toJSONFailure = jsonshape.FailureOf
)
