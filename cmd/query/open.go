package main

import (
	"context"
	"flag"

	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// parseNoArgs parses the flags of a subcommand that takes no positional
// argument (noArgs: hint names the flag meant instead).
func parseNoArgs(fs *flag.FlagSet, args []string, cmd, hint string) error {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	return noArgs(cmd, pos, hint)
}

// parseOneArg parses the flags of a subcommand that takes exactly one
// positional argument, what (oneArg), and returns it.
func parseOneArg(fs *flag.FlagSet, args []string, cmd, what string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	return oneArg(cmd, pos, what)
}

// openRow reads arg, a URL or a row key (rowKey), then opens the store:
// a bad argument is reported before the store is touched.
func openRow(ctx context.Context, db, arg string) (*webtable.WebTable, string, error) {
	key, err := rowKey(arg)
	if err != nil {
		return nil, "", err
	}
	w, err := openStore(ctx, db)
	return w, key, err
}

// openDomain reads --domain (domainRanges), then opens the store: a bad
// domain is reported before the store is touched.
func openDomain(ctx context.Context, db, domain string) (*webtable.WebTable, []urlkey.Range, error) {
	ranges, err := domainRanges(domain)
	if err != nil {
		return nil, nil, err
	}
	w, err := openStore(ctx, db)
	return w, ranges, err
}
