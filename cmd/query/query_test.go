package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/emulator"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestGolden checks the human output of each subcommand on the demo table.
func TestGolden(t *testing.T) {
	needDemo(t)
	// The fetch family's size depends on which demo pages answered 200 or
	// 304 in the later passes, so stats shows its byte column masked.
	sizes := regexp.MustCompile(`\d+(\.\d)? (B|KiB|MiB)`)
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"get.golden", []string{"--db", demoDB, "get", "http://www.cnn.com/"}},
		{"get-anchor.golden", []string{"get", "com.cnn.www/", "--family", "anchor", "--db", demoDB}},
		{"get-all-versions.golden", []string{"--db", demoDB, "get", "http://www.cnn.com/", "--column", "contents:sha256", "--all-versions"}},
		{"versions.golden", []string{"--db", demoDB, "versions", "http://www.cnn.com/"}},
		{"scan-domain.golden", []string{"--db", demoDB, "scan", "--domain", "cnn.com", "--column", "fetch:record"}},
		{"scan-keys.golden", []string{"--db", demoDB, "scan", "--keys-only"}},
		{"stats.golden", []string{"--db", demoDB, "stats"}},
		{"errors.golden", []string{"--db", demoDB, "errors"}},
		{"help.golden", []string{"--help"}},
		{"help-get.golden", []string{"get", "--help"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := runQuery(tc.args...)
			if code != exitOK {
				t.Fatalf("query %v: exit %d\n%s", tc.args, code, stderr)
			}
			shown := stdout
			if tc.file == "stats.golden" {
				shown = sizes.ReplaceAllString(stdout, "<size>")
			}
			golden(t, tc.file, shown)
			for i, line := range strings.Split(stdout, "\n") {
				if n := len([]rune(line)); n > lineWidth {
					t.Errorf("line %d is %d columns wide, over %d: %q", i+1, n, lineWidth, line)
				}
			}
		})
	}
}

// TestDemoRowAsAUserSeesIt: the paper's row, whatever the crawl times.
func TestDemoRowAsAUserSeesIt(t *testing.T) {
	needDemo(t)
	_, out, _ := runQuery("--db", demoDB, "get", "http://www.cnn.com/")
	for _, want := range []string{"com.cnn.www/\n", "anchor:cnnsi.com", " CNN\n", "anchor:my.look.ca", " CNN.com\n", "mime:type", "text/html", "contents:html", "<!DOCTYPE html>"} {
		if !strings.Contains(out, want) {
			t.Errorf("get http://www.cnn.com/ lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "</html>") {
		t.Errorf("get dumped the whole HTML:\n%s", out)
	}
}

func TestRawWritesTheBytesAlone(t *testing.T) {
	needDemo(t)
	w, err := stores.Open(context.Background(), demoDB, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := w.Get(context.Background(), "com.cnn.www/", webtable.Query{Column: "contents:html", Versions: -1})
	w.Close()
	if err != nil || len(row.Cells) != 3 {
		t.Fatalf("demo row has %d versions (err %v), want 3", len(row.Cells), err)
	}
	code, out, stderr := runQuery("get", "http://www.cnn.com/", "--column", "contents:html", "--raw", "--db", demoDB)
	if code != exitOK || out != string(row.Cells[0].Value) {
		t.Errorf("--raw: exit %d, %d bytes; want the newest version's %d bytes\n%s", code, len(out), len(row.Cells[0].Value), stderr)
	}
	// --at the oldest version's time gives the oldest version.
	oldest := row.Cells[2]
	at := oldest.Timestamp.Time().UTC().Format(time.RFC3339Nano)
	code, out, _ = runQuery("--db", demoDB, "get", "http://www.cnn.com/", "--column", "contents:html", "--raw", "--at", at)
	if code != exitOK || out != string(oldest.Value) {
		t.Errorf("--raw --at %s: exit %d, got a different version", at, code)
	}
	code, _, stderr = runQuery("--db", demoDB, "get", "http://www.cnn.com/", "--column", "contents:html", "--at", "2001-01-01")
	if code != exitNotFound || !strings.Contains(stderr, "has no column contents:html at or before 2001-01-01T23:59:59.999Z") {
		t.Errorf("--at before any version: exit %d, %q; want 1 and a clear line", code, stderr)
	}
}

func TestJSONParsesBack(t *testing.T) {
	needDemo(t)
	lines := func(args ...string) []map[string]any {
		t.Helper()
		code, out, stderr := runQuery(append([]string{"--db", demoDB}, args...)...)
		if code != exitOK {
			t.Fatalf("query %v: exit %d: %s", args, code, stderr)
		}
		var objs []map[string]any
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var o map[string]any
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				t.Fatalf("query %v: line %q is not JSON: %v", args, sc.Text(), err)
			}
			objs = append(objs, o)
		}
		return objs
	}

	rows := lines("get", "http://www.cnn.com/", "--json")
	if len(rows) != 1 || rows[0]["row"] != "com.cnn.www/" {
		t.Fatalf("get --json = %v, want one row com.cnn.www/", rows)
	}
	cells := rows[0]["cells"].([]any)
	prev := ""
	found := map[string]string{}
	for _, c := range cells {
		cell := c.(map[string]any)
		col := cell["column"].(string)
		if col < prev {
			t.Errorf("cells not ordered by column: %q after %q", col, prev)
		}
		prev = col
		if ts, ok := cell["timestamp"].(float64); !ok || ts < 1e15 {
			t.Errorf("cell %s timestamp %v is not microseconds since 1970", col, cell["timestamp"])
		}
		v, _ := cell["value"].(string)
		found[col] = v
	}
	if found["anchor:cnnsi.com"] != "CNN" || found["anchor:my.look.ca"] != "CNN.com" || !strings.Contains(found["contents:html"], "<title>") {
		t.Errorf("get --json cells = %v", found)
	}

	vs := lines("versions", "http://www.cnn.com/", "--json")
	if len(vs) != 3 {
		t.Fatalf("versions --json gave %d lines, want 3", len(vs))
	}
	for i, v := range vs {
		if v["row"] != "com.cnn.www/" || v["status"] != float64(200) || len(v["sha256"].(string)) != 64 || v["size"].(float64) <= 0 {
			t.Errorf("version %d = %v", i, v)
		}
		if _, err := time.Parse(time.RFC3339, v["time"].(string)); err != nil {
			t.Errorf("version %d time %q: %v", i, v["time"], err)
		}
		if i > 0 && v["timestamp"].(float64) >= vs[i-1]["timestamp"].(float64) {
			t.Errorf("versions not newest first: %v then %v", vs[i-1]["timestamp"], v["timestamp"])
		}
	}

	keys := lines("scan", "--domain", "cnn.com", "--keys-only", "--json")
	for _, k := range keys {
		if len(k) != 1 || !strings.HasPrefix(k["row"].(string), "com.cnn") {
			t.Errorf("scan --keys-only --json line = %v, want only a com.cnn row", k)
		}
	}
	if len(keys) == 0 {
		t.Errorf("scan --domain cnn.com found no rows")
	}
	st := lines("stats", "--json")
	if len(st) != 1 || st[0]["rows"].(float64) < 10 || st[0]["versions"].(float64) < 3 {
		t.Errorf("stats --json = %v", st)
	}
	tab := lines("tablets", "--json")
	if len(tab) < 1 || tab[0]["start"] != "" || tab[len(tab)-1]["end"] != "" {
		t.Errorf("tablets --json = %v, want tablets covering the whole key space", tab)
	}
	errs := lines("errors", "--json")
	if len(errs) == 0 || !strings.Contains(errs[0]["error"].(string), "robots.txt") {
		t.Errorf("errors --json = %v, want the demo's robots.txt refusals", errs)
	}
}

// TestBinaryValueIsBase64 stores a value that is not UTF-8 and reads it
// back through --json.
func TestBinaryValueIsBase64(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte{0xff, 0xfe, 'h', 'i', 0x00}
	if _, err := w.RecordFetch(ctx, &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://x.example/", Status: 200, Time: time.UnixMilli(1700000000000)}, MIME: "application/octet-stream", KeepBody: true, Body: raw}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	code, out, stderr := runQuery("--db", dir, "get", "http://x.example/", "--column", "contents:html", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var row struct {
		Cells []struct {
			Value       *string `json:"value"`
			ValueBase64 string  `json:"value_base64"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &row); err != nil || len(row.Cells) != 1 {
		t.Fatalf("%q: %v", out, err)
	}
	got, err := base64.StdEncoding.DecodeString(row.Cells[0].ValueBase64)
	if row.Cells[0].Value != nil || err != nil || string(got) != string(raw) {
		t.Errorf("binary value came back as %+v", row.Cells[0])
	}
	code, out, _ = runQuery("--db", dir, "get", "http://x.example/", "--column", "contents:html")
	if code != exitOK || !strings.Contains(out, "binary") {
		t.Errorf("human output of a binary value: %q", out)
	}
}

// TestErrors: each failure has its exit status and one clear line.
func TestErrors(t *testing.T) {
	needDemo(t)
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other.db")
	db, err := bigtable.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	db.CreateTable(context.Background(), "not-the-webtable")
	db.Close()
	foreign := filepath.Join(tmp, "foreign")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("not a store"), 0o644)
	corrupt := filepath.Join(tmp, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	os.WriteFile(filepath.Join(corrupt, "MANIFEST"), []byte("\x00garbage\xff not a manifest"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", nil, exitUsage, "missing subcommand"},
		{"foreign directory", []string{"--db", foreign, "stats"}, exitUsage, "not a bigtable store"},
		{"corrupt store", []string{"--db", corrupt, "stats"}, exitUsage, "cannot open the store"},
		{"unknown subcommand", []string{"fetch"}, exitUsage, `unknown subcommand "fetch"`},
		{"unknown flag", []string{"--db", demoDB, "get", "http://www.cnn.com/", "--colum", "x"}, exitUsage, "flag provided but not defined: -colum"},
		{"unknown flag before subcommand", []string{"--verbose", "get"}, exitUsage, "unknown flag --verbose"},
		{"missing argument", []string{"--db", demoDB, "get"}, exitUsage, "missing URL or row key"},
		{"two arguments", []string{"--db", demoDB, "versions", "a", "b"}, exitUsage, "one URL or row key expected, got 2"},
		{"missing store", []string{"--db", filepath.Join(tmp, "nope"), "get", "com.cnn.www/"}, exitUsage, "does not exist"},
		{"store without webtable", []string{"--db", other, "get", "com.cnn.www/"}, exitUsage, "no table \"webtable\""},
		{"unknown family", []string{"--db", demoDB, "get", "com.cnn.www/", "--family", "anchr"}, exitUsage, `unknown column family "anchr"`},
		{"bad column", []string{"--db", demoDB, "get", "com.cnn.www/", "--column", "html"}, exitUsage, `column "html" is not family:qualifier`},
		{"bad time", []string{"--db", demoDB, "get", "com.cnn.www/", "--at", "yesterday"}, exitUsage, `--at "yesterday": want microseconds`},
		{"bad URL", []string{"--db", demoDB, "get", "http://exa mple.com/"}, exitUsage, "urlkey"},
		{"not http", []string{"--db", demoDB, "get", "ftp://www.cnn.com/"}, exitUsage, "scheme"},
		{"raw without column", []string{"--db", demoDB, "get", "com.cnn.www/", "--raw"}, exitUsage, "name it with --column"},
		{"raw all versions without column", []string{"--db", demoDB, "get", "com.cnn.www/", "--raw", "--all-versions"}, exitUsage, "name it with --column"},
		{"raw and json with all versions", []string{"--db", demoDB, "get", "com.cnn.www/", "--column", "contents:html", "--raw", "--json", "--all-versions"}, exitUsage, "--raw and --json exclude each other"},
		{"raw all versions", []string{"--db", demoDB, "get", "com.cnn.www/", "--column", "contents:html", "--raw", "--all-versions"}, exitUsage, "--raw writes the newest value alone"},
		{"raw versions", []string{"--db", demoDB, "get", "com.cnn.www/", "--column", "contents:html", "--raw", "--versions", "2"}, exitUsage, "--raw writes the newest value alone"},
		{"two ranges", []string{"--db", demoDB, "scan", "--domain", "cnn.com", "--host", "www.cnn.com"}, exitUsage, "give one of"},
		{"bad domain", []string{"--db", demoDB, "scan", "--domain", "exa mple.com"}, exitUsage, "not a domain name"},
		{"start after end", []string{"--db", demoDB, "scan", "--start", "b", "--end", "a"}, exitUsage, "must sort before"},
		{"no such row", []string{"--db", demoDB, "get", "http://www.cnn.com/nothing-here"}, exitNotFound, `no row "com.cnn.www/nothing-here"`},
		{"no such column", []string{"--db", demoDB, "get", "http://www.cnn.com/", "--column", "anchor:nobody"}, exitNotFound, "has no column anchor:nobody"},
		{"no versions", []string{"--db", demoDB, "versions", "com.cnn.www/private/drafts.html"}, exitNotFound, "has no stored HTML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runQuery(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "nope")); !os.IsNotExist(err) {
		t.Errorf("query created the missing store directory")
	}
}

func TestEmptyScanPrintsNothing(t *testing.T) {
	needDemo(t)
	code, out, stderr := runQuery("--db", demoDB, "scan", "--domain", "nowhere.test")
	if code != exitOK || out != "" || stderr != "" {
		t.Errorf("empty scan: exit %d, stdout %q, stderr %q; want 0 and nothing", code, out, stderr)
	}
}

// TestStoreHeldByACrawl: while another process (here, this test) holds the
// store for writing, query says so and exits 2.
func TestStoreHeldByACrawl(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	w, err := stores.Open(context.Background(), dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	code, _, stderr := runQuery("--db", dir, "stats")
	if code != exitUsage || !strings.Contains(stderr, "in use by another process") || !strings.Contains(stderr, "wait for it to finish or stop it") {
		t.Errorf("exit %d, %q; want 2 naming the other process and what to do", code, stderr)
	}
}

// TestQueryChangesNothing: every read-only subcommand succeeds on the demo
// store and leaves each of its files as it was: same names, sizes,
// modification times and bytes; so do query serve (every view asked for,
// a new summary too) and export, and the same queries read through a
// crawl's server (crawl --serve) leave the served store as it was.
func TestQueryChangesNothing(t *testing.T) {
	needDemo(t)
	reads := [][]string{
		{"get", "com.cnn.www/"}, {"get", "com.cnn.www/", "--all-versions", "--json"}, {"scan"}, {"scan", "--domain", "cnn.com"},
		{"stats"}, {"tablets"}, {"errors"}, {"versions", "com.cnn.www/"},
		{"export", "--warc", "OUT.warc.gz", "--cdxj", "OUT.cdxj", "--all-versions"},
	}
	query := func(db string) {
		t.Helper()
		out := t.TempDir()
		for _, args := range reads {
			args = slices.Clone(args)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(out, "out"))
			}
			if code, _, stderr := runQuery(append([]string{"--db", db}, args...)...); code != exitOK {
				t.Errorf("query %v on %s: exit %d, want 0 (a query that fails proves nothing about writes)\n%s", args, db, code, stderr)
			}
		}
	}
	before := snapshot(t, demoDB)
	query(demoDB)
	t.Run("serve", func(t *testing.T) {
		base := startServe(t, "--db", demoDB)
		for _, path := range []string{"?refresh=1", "domain?domain=cnn.com", "page?url=http://www.cnn.com/", "errors", "tablets"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("query serve: GET /%s: %s", path, resp.Status)
			}
		}
	}) // NB: the subtest's cleanup stops query serve before the snapshot
	if diff := diffSnapshots(before, snapshot(t, demoDB)); diff != "" {
		t.Errorf("query changed the store's files:\n%s", diff)
	}

	// Through a crawl's server: the served store (a copy) is as it was
	// once opened, after every query has read it through the server.
	live := filepath.Join(t.TempDir(), "live.db")
	if err := os.CopyFS(live, os.DirFS(demoDB)); err != nil {
		t.Fatal(err)
	}
	// NB: a small value log: snapshot reads every byte of the store's
	// files, and Badger's default preallocates 1 GiB.
	small := webtable.Options{Store: []bigtable.Option{bigtable.WithValueLogFileSize(4 << 20), bigtable.WithMemTableSize(4 << 20)}}
	s, err := stores.OpenServed(context.Background(), live, small, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, live)
	query(live)
	if !stores.Serving(live) {
		t.Errorf("%s is not served: the queries did not read through the server", live)
	}
	if diff := diffSnapshots(before, snapshot(t, live)); diff != "" {
		t.Errorf("query through a crawl's server changed the store's files:\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The check can fail: a writer's open of a copy, with one page
	// written, shows up in it.
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.CopyFS(cp, os.DirFS(demoDB)); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, cp)
	w, err := stores.Open(context.Background(), cp, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/new", Status: 200, Time: time.Now()}, MIME: "text/html", KeepBody: true, Body: []byte("<p>new")}
	if _, err := w.RecordFetch(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diffSnapshots(before, snapshot(t, cp)) == "" {
		t.Error("writing a page into a copy of the store changed none of its files as snapshot sees them")
	}
}

// fileState is what snapshot records of one file.
type fileState struct {
	size    int64
	modTime time.Time
	sum     [sha256.Size]byte
}

// snapshot records every file under dir, by its path relative to dir.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	files := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = fileState{size: fi.Size(), modTime: fi.ModTime(), sum: sha256.Sum256(b)}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the files of %s: %v", dir, err)
	}
	if len(files) == 0 {
		t.Fatalf("%s holds no files", dir)
	}
	return files
}

// diffSnapshots lists the files added, removed or changed, one a line.
func diffSnapshots(before, after map[string]fileState) string {
	var diff []string
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			diff = append(diff, name+": removed")
		case a.size != b.size:
			diff = append(diff, fmt.Sprintf("%s: size %d -> %d", name, b.size, a.size))
		case a.sum != b.sum:
			diff = append(diff, name+": bytes changed")
		case !a.modTime.Equal(b.modTime):
			diff = append(diff, fmt.Sprintf("%s: modified at %v (was %v)", name, a.modTime, b.modTime))
		}
	}
	for name, a := range after {
		if _, ok := before[name]; !ok {
			diff = append(diff, fmt.Sprintf("%s: added (%d bytes)", name, a.size))
		}
	}
	slices.Sort(diff)
	return strings.Join(diff, "\n")
}

// TestEndToEnd runs the real binaries as a user would: crawl --demo, then
// query.
func TestEndToEnd(t *testing.T) {
	needDemo(t)
	query := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(binDir, "query"), append([]string{"--db", demoDB}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("query %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := query("get", "http://www.cnn.com/"); !strings.Contains(out, "anchor:cnnsi.com") || !strings.Contains(out, "CNN.com") {
		t.Errorf("query get:\n%s", out)
	}
	if out := query("versions", "http://www.cnn.com/"); strings.Count(out, "\n") != 4 {
		t.Errorf("query versions shows %d lines, want a header and 3 versions:\n%s", strings.Count(out, "\n"), out)
	}
	out := query("scan", "--domain", "cnn.com", "--keys-only")
	if !strings.HasPrefix(out, "com.cnn.www/\n") || strings.Contains(out, "com.cnnsi") {
		t.Errorf("query scan --domain cnn.com --keys-only:\n%s", out)
	}
	if out := query("stats"); !strings.Contains(out, "versions") || !strings.Contains(out, "rows") {
		t.Errorf("query stats:\n%s", out)
	}
	cmd := exec.Command(filepath.Join(binDir, "query"), "--db", demoDB, "get", "http://www.cnn.com/missing")
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != exitNotFound {
		t.Errorf("query get of a missing page: %v, want exit %d", err, exitNotFound)
	}
}

// TestExport copies the demo table into a new directory and into Cloud
// Bigtable (the emulator), and reads the same rows back from each.
func TestExport(t *testing.T) {
	needDemo(t)
	emulator.Start(t)
	_, want, _ := runQuery("--db", demoDB, "scan", "--json")
	for _, dest := range []string{filepath.Join(t.TempDir(), "copy.db"), "bigtable://p/i"} {
		code, out, stderr := runQuery("--db", demoDB, "export", "--to", dest)
		if code != exitOK || !strings.HasPrefix(out, "copied ") {
			t.Fatalf("export --to %s: exit %d, %q\n%s", dest, code, out, stderr)
		}
		_, got, _ := runQuery("--db", dest, "scan", "--json")
		if got != want {
			t.Errorf("scan of the copy in %s differs from the demo table", dest)
		}
		_, v1, _ := runQuery("--db", demoDB, "versions", "com.cnn.www/", "--json")
		_, v2, _ := runQuery("--db", dest, "versions", "com.cnn.www/", "--json")
		if v1 != v2 || strings.Count(v2, "\n") != 3 {
			t.Errorf("versions in %s:\n%s\nwant:\n%s", dest, v2, v1)
		}
		// NB: stats reads in parallel, per tablet here and per
		// SampleRowKeys piece on Cloud Bigtable.
		_, s1, _ := runQuery("--db", demoDB, "stats", "--json")
		_, s2, _ := runQuery("--db", dest, "stats", "--json")
		if s1 != s2 || s1 == "" {
			t.Errorf("stats in %s:\n%s\nwant:\n%s", dest, s2, s1)
		}
	}
	if code, _, stderr := runQuery("--db", demoDB, "export", "--to", demoDB); code != exitUsage || !strings.Contains(stderr, "is the store being read") {
		t.Errorf("export onto itself: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runQuery("--db", demoDB, "export"); code != exitUsage || !strings.Contains(stderr, "needs --to") {
		t.Errorf("export without --to: exit %d, %q", code, stderr)
	}
}

// TestFrontierLine: stats does not present stale or repeated frontier
// entries as pages waiting to be fetched.
func TestFrontierLine(t *testing.T) {
	for _, tc := range []struct {
		frontier, queued int64
		want             string
	}{
		{0, 0, "0 entries waiting to be fetched"},
		{12, 12, "12 entries waiting to be fetched"},
		{3, 5, "3 entries waiting to be fetched"}, // a store not yet migrated
		{14, 12, "14 entries for the 12 queued pages (2 repeat a page or name one already fetched: a crawl drops them as it reads them)"},
	} {
		if got := frontierLine(webtable.Stats{Frontier: tc.frontier, Queued: tc.queued}); got != tc.want {
			t.Errorf("frontierLine(frontier %d, queued %d) = %q, want %q", tc.frontier, tc.queued, got, tc.want)
		}
	}
}
