package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/internal/flagvalue"
	"github.com/webtable/webtable/webtable"
)

// errUsage marks an error in how the command was called (exit status 2).
var errUsage = errors.New("usage")

// usageError is a mistake in the command line: exit status 2, one line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return errUsage }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// newFlagSet makes a flag set that reports errors to the caller instead of
// printing and exiting, with the --db flag every subcommand accepts.
func newFlagSet(name string, db *string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(db, "db", defaultDB, "the store: a `DIR`ectory or bigtable://PROJECT/INSTANCE[/TABLE]")
	return fs
}

// parseArgs parses flags that may come before or after the positional
// arguments ("get URL --raw" and "get --raw URL"); "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	positional, err := flagvalue.ParseArgs(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, usagef("%v (see query %s --help)", err, fs.Name())
	}
	return positional, err
}

// parseAt reads the --at time: an integer is microseconds since the Unix
// epoch; otherwise RFC 3339 (2026-01-02T15:04:05Z) or a date (2026-01-02,
// meaning the end of that day, UTC).
func parseAt(s string) (webtable.Timestamp, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case n <= 0:
			return 0, usagef("--at %s: a time in microseconds must be positive", s)
		case err != nil || webtable.Timestamp(n) > webtable.MaxTimestamp:
			return 0, usagef("--at %s: later than any timestamp holds (at most %d microseconds)", s, webtable.MaxTimestamp)
		}
		return webtable.Timestamp(n), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var d time.Time
		if d, err = time.Parse(time.DateOnly, s); err == nil {
			t = d.Add(24*time.Hour - time.Microsecond)
		}
	}
	if err == nil {
		ts, err := webtable.CheckedTimestamp(t)
		if err != nil || ts == 0 {
			return 0, usagef("--at %s: before the first time a timestamp holds (1970-01-01T00:00:00.000001Z)", s)
		}
		return ts, nil
	}
	return 0, usagef("--at %q: want microseconds since 1970 (1700000000000000), RFC 3339 (2026-01-02T15:04:05Z) or a date (2026-01-02)", s)
}

// formatTime shows a timestamp as RFC 3339 UTC with milliseconds.
func formatTime(ts webtable.Timestamp) string {
	return ts.Time().UTC().Format("2006-01-02T15:04:05.000Z")
}

// noArgs checks that a subcommand that takes only flags got no argument;
// hint, when not "", suggests the flag the user probably meant for it.
func noArgs(cmd string, args []string, hint string) error {
	if len(args) == 0 {
		return nil
	}
	if hint != "" {
		return usagef("takes no arguments, got %q (did you mean %s %s?)", strings.Join(args, " "), hint, args[0])
	}
	return usagef("takes no arguments, got %q (see query %s --help)", strings.Join(args, " "), cmd)
}

// oneArg checks that exactly one positional argument was given.
func oneArg(cmd string, args []string, what string) (string, error) {
	switch len(args) {
	case 1:
		return args[0], nil
	case 0:
		return "", usagef("missing %s (see query %s --help)", what, cmd)
	default:
		return "", usagef("one %s expected, got %d: %s", what, len(args), strings.Join(args, " "))
	}
}

// timeJSON is the layout of "time" fields in --json output.
const timeJSON = time.RFC3339Nano

// rowKey turns an argument into a row key: a URL (it holds "://") through
// urlkey, anything else as it is.
func rowKey(arg string) (string, error) {
	k, err := webtable.RowKey(arg)
	if err != nil {
		return "", usagef("%v", err)
	}
	return k, nil
}
