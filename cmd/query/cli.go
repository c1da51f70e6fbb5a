package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// defaultDB is where the store is looked for without --db.
const defaultDB = "./webtable.db"

// Exit statuses.
const (
	exitOK       = 0
	exitNotFound = 1 // nothing matched, or the store failed while reading
	exitUsage    = 2 // bad command line or unusable store
)

// errNotFound marks "nothing found" (exit status 1).
var errNotFound = errors.New("not found")

// command is one subcommand: its name, a one-line summary, its help text
// (with a real example) and what it runs.
type command struct {
	name    string
	summary string
	help    string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the one table that drives dispatch and help.
var commands []command

func init() {
	commands = []command{
		{"get", "show a page's row: its cells, latest version first", getHelp, runGet},
		{"versions", "list the stored versions of a page's HTML", versionsHelp, runVersions},
		{"scan", "list the rows of a site, a host or a key range, in key order", scanHelp, runScan},
		{"tablets", "list the tablets (row ranges stored together)", tabletsHelp, runTablets},
		{"stats", "count rows, fetches, failures, versions and bytes", statsHelp, runStats},
		{"errors", "list the URLs whose last fetch failed", errorsHelp, runErrors},
		{"export", "copy the table to another store, or write it as a web archive (WARC)", exportHelp, runExport},
		{"search", "search the stored pages' text: words, \"phrases\", -words, site:", searchHelp, runSearch},
		{"serve", "browse the table in a web browser (read-only)", serveHelp, runServe},
	}
}

const mainHelp = `query reads a WebTable: the pages a crawl stored, one row per page, keyed by
the page's URL with the host reversed (http://www.cnn.com/a -> com.cnn.www/a),
so that a whole site is one range of rows.

Usage:
  query [--db DIR] SUBCOMMAND [ARGS] [FLAGS]

Subcommands:
%s
Flags (before or after the subcommand):
  --db DIR   the store to read (default ./webtable.db; the demo crawl writes
             ./webtable-demo.db), or bigtable://PROJECT/INSTANCE[/TABLE] for
             Cloud Bigtable (BIGTABLE_EMULATOR_HOST=host:port for an emulator)

Examples:
  query --db webtable-demo.db get http://www.cnn.com/
  query --db webtable-demo.db versions http://www.cnn.com/
  query --db webtable-demo.db scan --domain cnn.com --keys-only

An argument with "://" is a URL and is turned into its row key; anything
else is a row key as stored (com.cnn.www/). Run "query SUBCOMMAND --help"
for each subcommand's flags.

query never changes the store it reads (export writes only to its --to).
It opens the store read-only; if a crawl was
killed and left its log unreplayed, it opens the store for writing once,
only to replay that log, then reads. While a crawl is running, the store is
locked: wait for the crawl to finish, or stop it, then query.

Exit status: 0 found, 1 nothing found, 2 usage or store error.
`

func mainUsage() string {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	return fmt.Sprintf(mainHelp, b.String())
}

// run is the whole program: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name, rest, err := splitCommand(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, mainUsage())
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "query: %v\n", err)
		return exitUsage
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, rest, stdout, stderr)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(stdout, c.help)
			return exitOK
		case errors.Is(err, errNotFound):
			fmt.Fprintf(stderr, "query %s: %v\n", name, err)
			return exitNotFound
		case errors.Is(err, errUsage) || isSetupError(err):
			fmt.Fprintf(stderr, "query %s: %v\n", name, err)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "query %s: %v\n", name, err)
			return exitNotFound
		}
	}
	fmt.Fprintf(stderr, "query: unknown subcommand %q (want one of: %s; see query --help)\n", name, commandNames())
	return exitUsage
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// splitCommand finds the subcommand among the arguments; --db (and -h) may
// come before it. The global flags stay in the returned arguments so the
// subcommand's own flag set reads them.
func splitCommand(args []string) (string, []string, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help" || a == "help":
			return "", nil, flag.ErrHelp
		case a == "--db" || a == "-db":
			i++ // its value
			if i == len(args) {
				return "", nil, usagef("--db needs a directory")
			}
		case strings.HasPrefix(a, "--db=") || strings.HasPrefix(a, "-db="):
		case strings.HasPrefix(a, "-"):
			return "", nil, usagef("unknown flag %s before the subcommand (want one of: %s)", a, commandNames())
		default:
			rest := append(append([]string{}, args[:i]...), args[i+1:]...)
			return a, rest, nil
		}
	}
	return "", nil, usagef("missing subcommand (want one of: %s; see query --help)", commandNames())
}

// isSetupError reports errors that mean the store cannot be used at all.
func isSetupError(err error) bool {
	return errors.Is(err, webtable.ErrNoStore) || errors.Is(err, webtable.ErrNoWebTable) ||
		errors.Is(err, webtable.ErrUnknownFamily) || errors.Is(err, webtable.ErrBadColumn) ||
		errors.Is(err, webtable.ErrInUse) ||
		errors.Is(err, errSetup)
}

// errSetup marks a store that could not be opened.
var errSetup = errors.New("cannot open the store")

// openStore opens the WebTable at dir for reading, never creating anything.
func openStore(ctx context.Context, dir string) (*webtable.WebTable, error) {
	w, err := stores.Open(ctx, dir, stores.ForRead, webtable.Options{})
	switch {
	case err == nil:
		return w, nil
	case errors.Is(err, webtable.ErrInUse):
		return nil, fmt.Errorf("%w: %v; a crawl is probably writing to it: wait for it to finish or stop it (Ctrl-C), then run query again (a crawl started with --serve ADDR lets query read its store while it runs)", errSetup, err)
	case errors.Is(err, webtable.ErrNoStore):
		return nil, fmt.Errorf("%w (crawl first, e.g. go run ./cmd/crawl --demo, or name the store with --db)", err)
	case errors.Is(err, webtable.ErrNoWebTable):
		return nil, err
	case errors.Is(err, webtable.ErrFormatTooOld):
		return nil, fmt.Errorf("%w: %v: run crawl --db %s once to migrate it (in steps; a stopped migration resumes)", errSetup, err, dir)
	default:
		return nil, fmt.Errorf("%w: %v", errSetup, err)
	}
}
