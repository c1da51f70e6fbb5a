package server

import (
	"strings"

	"google.golang.org/grpc/codes"
)

// Resource names. Any project and instance name the one store: a client
// may use whatever its configuration says.

// parseParent checks an instance name, projects/P/instances/I, and returns
// it.
func parseParent(name string) (string, error) {
	parts := strings.Split(name, "/")
	if len(parts) != 4 || parts[0] != "projects" || parts[1] == "" || parts[2] != "instances" || parts[3] == "" {
		return "", statusf(codes.InvalidArgument, "bad instance name %q, want projects/PROJECT/instances/INSTANCE", name)
	}
	return name, nil
}

// parseTable splits a table name, projects/P/instances/I/tables/T, into
// its instance name and its table.
func parseTable(name string) (parent, table string, err error) {
	i := strings.LastIndex(name, "/tables/")
	if i < 0 {
		return "", "", statusf(codes.InvalidArgument, "bad table name %q, want projects/PROJECT/instances/INSTANCE/tables/TABLE", name)
	}
	parent, table = name[:i], name[i+len("/tables/"):]
	if _, err := parseParent(parent); err != nil || table == "" || strings.Contains(table, "/") {
		return "", "", statusf(codes.InvalidArgument, "bad table name %q, want projects/PROJECT/instances/INSTANCE/tables/TABLE", name)
	}
	return parent, table, nil
}
