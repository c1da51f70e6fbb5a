package main

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/emulator"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// travels is what a WARC carries of a WebTable: the rows that hold
// contents:html, every version of contents:html (timestamp, bytes),
// contents:url and mime:type, and the anchor texts between those rows.
type travels struct {
	HTML    map[string][]string // row -> "timestamp sha1" per version, newest first
	URL     map[string][]string // row -> "timestamp url"
	MIME    map[string]string
	Anchors map[string]string // "to-row <- referrer" -> text
}

func readTravels(t *testing.T, db string) travels {
	t.Helper()
	ctx := context.Background()
	w, err := stores.Open(ctx, db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tr := travels{HTML: map[string][]string{}, URL: map[string][]string{}, MIME: map[string]string{}, Anchors: map[string]string{}}
	anchors := map[string]map[string]string{} // row -> referrer -> text
	referrers := map[string]bool{}
	err = w.Scan(ctx, nil, webtable.Query{Versions: -1}, 0, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			switch c.Column() {
			case "contents:html":
				sum := sha1.Sum(c.Value)
				tr.HTML[r.Key] = append(tr.HTML[r.Key], fmt.Sprintf("%d %x", c.Timestamp, sum))
			case "mime:type":
				tr.MIME[r.Key] = string(c.Value)
			}
			if c.Family == "anchor" {
				if anchors[r.Key] == nil {
					anchors[r.Key] = map[string]string{}
				}
				anchors[r.Key][c.Qualifier] = string(c.Value)
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	// The URL fetched of each version, as the export reads it.
	err = w.Captures(ctx, nil, webtable.Selection{All: true}, func(c *webtable.Capture) error {
		ts := webtable.TimestampOf(c.Time)
		tr.URL[c.Row] = append(tr.URL[c.Row], fmt.Sprintf("%d %s", ts, c.URL))
		if u, err := urlkey.Canonical(c.URL); err == nil {
			referrers[urlkey.Referrer(u)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for row, refs := range anchors {
		if tr.HTML[row] == nil {
			continue
		}
		for ref, text := range refs {
			if referrers[ref] {
				tr.Anchors[row+" <- "+ref] = text
			}
		}
	}
	for row := range tr.HTML {
		if _, ok := tr.MIME[row]; !ok {
			tr.MIME[row] = ""
		}
	}
	return tr
}

// exportDemo writes the demo table as a WARC with its CDXJ index.
func exportDemo(t *testing.T, dir string, extra ...string) (warc, cdxj string) {
	t.Helper()
	warc, cdxj = filepath.Join(dir, "demo.warc.gz"), filepath.Join(dir, "demo.cdxj")
	args := append([]string{"--db", demoDB, "export", "--warc", warc, "--cdxj", cdxj}, extra...)
	code, out, stderr := runQuery(args...)
	if code != exitOK || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("query %v: exit %d, %q\n%s", args, code, out, stderr)
	}
	return warc, cdxj
}

// TestWARCRoundTrip: demo crawl -> export --all-versions -> crawl
// --from-warc into a new store gives the same pages, versions (to the
// millisecond), URLs, media types and anchors between them.
func TestWARCRoundTrip(t *testing.T) {
	needDemo(t)
	dir := t.TempDir()
	warc, _ := exportDemo(t, dir, "--all-versions")
	db := filepath.Join(dir, "imported.db")
	cmd := exec.Command(filepath.Join(binDir, "crawl"), "--from-warc", warc, "--db", db)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("crawl --from-warc: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "skipped: 1 warcinfo") {
		t.Errorf("crawl --from-warc output does not count the skipped warcinfo record:\n%s", out)
	}
	want, got := readTravels(t, demoDB), readTravels(t, db)
	if len(want.HTML) < 5 || len(want.HTML["com.cnn.www/"]) != 3 || len(want.Anchors) < 3 {
		t.Fatalf("the demo table is smaller than expected: %+v", want)
	}
	for name, pair := range map[string][2]any{
		"rows and contents:html versions": {want.HTML, got.HTML},
		"contents:url":                    {want.URL, got.URL},
		"mime:type":                       {want.MIME, got.MIME},
		"anchors":                         {want.Anchors, got.Anchors},
	} {
		w, _ := json.MarshalIndent(pair[0], "", " ")
		g, _ := json.MarshalIndent(pair[1], "", " ")
		if !bytes.Equal(w, g) {
			t.Errorf("%s differ after the round trip:\n--- imported:\n%s\n--- crawled:\n%s", name, g, w)
		}
	}
}

// TestExportWARCSelections: the latest version by default, the one current
// at --at, and usage errors.
func TestExportWARCSelections(t *testing.T) {
	needDemo(t)
	dir := t.TempDir()
	_, all := exportDemo(t, dir, "--all-versions")
	allLines := readLines(t, all)
	_, latest := exportDemo(t, t.TempDir())
	latestLines := readLines(t, latest)
	rows := map[string]bool{}
	for _, l := range allLines {
		rows[strings.Fields(l)[0]] = true
	}
	if len(latestLines) != len(rows) || len(allLines) != len(rows)+2 {
		t.Errorf("latest export has %d records and --all-versions %d, for %d pages of which one has 3 versions", len(latestLines), len(allLines), len(rows))
	}
	// --at the middle version of www.cnn.com's home page gives that version.
	ctx := context.Background()
	w, err := stores.Open(ctx, demoDB, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := w.Get(ctx, "com.cnn.www/", webtable.Query{Column: "contents:html", Versions: -1})
	w.Close()
	if err != nil || len(row.Cells) != 3 {
		t.Fatalf("demo row com.cnn.www/: %d versions, %v", len(row.Cells), err)
	}
	mid := row.Cells[1]
	sum := sha1.Sum(mid.Value)
	digest := base32.StdEncoding.EncodeToString(sum[:])
	_, at := exportDemo(t, t.TempDir(), "--at", strconv.FormatInt(int64(mid.Timestamp), 10), "--host", "www.cnn.com")
	atLines := readLines(t, at)
	found := false
	for _, l := range atLines {
		if !strings.HasPrefix(l, "com,cnn)/") {
			t.Errorf("--host www.cnn.com exported %q", l)
		}
		if strings.Contains(l, `"url":"http://www.cnn.com/"`) {
			found = true
			if !strings.Contains(l, `"digest":"`+digest+`"`) {
				t.Errorf("--at the middle version exported %q, want digest %s", l, digest)
			}
		}
	}
	if !found {
		t.Errorf("--at %d --host www.cnn.com did not export the home page: %q", mid.Timestamp, atLines)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--warc", filepath.Join(dir, "x.warc.gz"), "--to", filepath.Join(dir, "x.db")}, "exclude each other"},
		{[]string{"--warc", filepath.Join(dir, "x.warc.gz"), "--all-versions", "--at", "2026-01-02"}, "exclude each other"},
		{[]string{"--cdxj", filepath.Join(dir, "x.cdxj")}, "go with --warc"},
		{[]string{"--warc", filepath.Join(dir, "x.warc.gz"), "--at", "yesterday"}, "--at"},
	} {
		code, _, stderr := runQuery(append([]string{"--db", demoDB, "export"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("export %v: exit %d, %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// warcioCLI finds webrecorder's warcio 2.4.11 (npm), which .ci/run
// installs: $WARCIO_CLI, else ~/.cache/webtable-npm. Under CI a missing
// tool fails the test; elsewhere it skips, saying why.
func warcioCLI(t *testing.T) (node, cli string) {
	t.Helper()
	cli = os.Getenv("WARCIO_CLI")
	if cli == "" {
		home, _ := os.UserHomeDir()
		cli = filepath.Join(home, ".cache", "webtable-npm", "node_modules", "warcio", "dist", "cli.js")
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(cli); err != nil || serr != nil {
		msg := fmt.Sprintf("warcio 2.4.11 is not installed (node: %v; %s: %v): run .ci/run, or npm install --prefix ~/.cache/webtable-npm warcio@2.4.11; CI runs this test", err, cli, serr)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, cli
}

// TestWarcioAgrees: an independent reader, warcio 2.4.11, parses every
// exported record, and its cdx-index gives our CDXJ lines.
func TestWarcioAgrees(t *testing.T) {
	needDemo(t)
	node, cli := warcioCLI(t)
	warc, cdxj := exportDemo(t, t.TempDir(), "--all-versions")
	ours := readLines(t, cdxj)

	out, err := exec.Command(node, cli, "cdx-index", warc).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v", err)
	}
	theirs := strings.SplitAfter(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(theirs)
	if strings.Join(ours, "") != strings.Join(theirs, "") {
		t.Errorf("CDXJ differs from warcio cdx-index:\n--- ours:\n%s--- warcio:\n%s", strings.Join(ours, ""), strings.Join(theirs, ""))
	}

	out, err = exec.Command(node, cli, "index", warc, "--fields", "warc-type,warc-target-uri,warc-payload-digest,length").Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	recs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(recs) != len(ours)+1 || !strings.Contains(recs[0], `"warc-type":"warcinfo"`) {
		t.Fatalf("warcio index read %d records, want a warcinfo and %d responses:\n%s", len(recs), len(ours), out)
	}
	for _, r := range recs[1:] {
		if !strings.Contains(r, `"warc-type":"response"`) || !strings.Contains(r, `"warc-payload-digest":"sha1:`) {
			t.Errorf("warcio read record %s, want a response with a sha1 payload digest", r)
		}
	}

	// A version stored before headers were kept is a resource record,
	// which warcio indexes too (its mime, no status).
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "old.db")
	w, err := stores.Open(ctx, db, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range []string{"", "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n\r\n"} {
		p := &webtable.Page{
			Fetch: crawlstore.Fetch{URL: "https://www.example.org/a?b=2&a=1", Status: 200, Time: time.Date(2026, 1, 2, 3, 4, 5, i*1_000_000, time.UTC)},
			MIME:  "text/html", KeepBody: true, Body: []byte(fmt.Sprintf("<p>version %d & <b>more</b></p>", i)),
		}
		if h != "" {
			p.Headers = []byte(h)
		}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	dir := t.TempDir()
	warc, cdxj = filepath.Join(dir, "old.warc.gz"), filepath.Join(dir, "old.cdxj")
	if code, _, stderr := runQuery("--db", db, "export", "--warc", warc, "--cdxj", cdxj, "--all-versions"); code != exitOK {
		t.Fatalf("export: %s", stderr)
	}
	ours = readLines(t, cdxj)
	out, err = exec.Command(node, cli, "cdx-index", warc).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v", err)
	}
	theirs = strings.SplitAfter(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(theirs)
	if len(ours) != 2 || strings.Join(ours, "") != strings.Join(theirs, "") {
		t.Errorf("CDXJ of a resource and a response differs from warcio cdx-index:\n--- ours:\n%s--- warcio:\n%s", strings.Join(ours, ""), strings.Join(theirs, ""))
	}
}

// TestScanAt: scan --at shows every row as it was then.
func TestScanAt(t *testing.T) {
	needDemo(t)
	code, out, stderr := runQuery("--db", demoDB, "versions", "com.cnn.www/", "--json")
	if code != exitOK {
		t.Fatalf("versions: %s", stderr)
	}
	var ts []int64
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct{ Timestamp int64 }
		json.Unmarshal([]byte(l), &v)
		ts = append(ts, v.Timestamp)
	}
	if len(ts) != 3 {
		t.Fatalf("demo home page has %d versions, want 3", len(ts))
	}
	for _, tc := range []struct {
		at   int64
		want int64 // timestamp of com.cnn.www/'s contents:sha256 shown; 0 = row absent
	}{
		{ts[2], ts[2]},
		{ts[1] + 500, ts[1]}, // within the millisecond of the middle version
		{ts[0] + 1_000_000, ts[0]},
		{ts[2] - 1000, 0},
	} {
		code, out, stderr := runQuery("--db", demoDB, "scan", "--domain", "cnn.com", "--column", "contents:sha256", "--at", strconv.FormatInt(tc.at, 10), "--json")
		if code != exitOK {
			t.Fatalf("scan --at %d: exit %d %s", tc.at, code, stderr)
		}
		var got int64
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				Row   string
				Cells []struct{ Timestamp int64 }
			}
			json.Unmarshal([]byte(l), &r)
			if r.Row == "com.cnn.www/" && len(r.Cells) == 1 {
				got = r.Cells[0].Timestamp
			}
			for _, c := range r.Cells {
				if c.Timestamp > tc.at {
					t.Errorf("scan --at %d shows %s at %d, after it", tc.at, r.Row, c.Timestamp)
				}
			}
		}
		if got != tc.want {
			t.Errorf("scan --at %d: com.cnn.www/ contents:sha256 at %d, want %d", tc.at, got, tc.want)
		}
	}
}

// TestExportWARCFromCloudBigtable: the same records come out of a table on
// Cloud Bigtable (the emulator) as out of the embedded store.
func TestExportWARCFromCloudBigtable(t *testing.T) {
	needDemo(t)
	emulator.Start(t)
	if code, _, stderr := runQuery("--db", demoDB, "export", "--to", "bigtable://p/warc"); code != exitOK {
		t.Fatalf("export --to the emulator: %s", stderr)
	}
	dir := t.TempDir()
	_, local := exportDemo(t, dir, "--all-versions")
	cloudCDXJ := filepath.Join(dir, "cloud.cdxj")
	if code, _, stderr := runQuery("--db", "bigtable://p/warc", "export", "--warc", filepath.Join(dir, "cloud.warc.gz"), "--cdxj", cloudCDXJ, "--all-versions"); code != exitOK {
		t.Fatalf("export --warc from the emulator: %s", stderr)
	}
	// Record ids are random, so compressed lengths and offsets differ.
	strip := func(lines []string) string {
		var out []string
		for _, l := range lines {
			l = regexp.MustCompile(`"length":"\d+","offset":"\d+","filename":"[^"]*"`).ReplaceAllString(l, "")
			out = append(out, l)
		}
		slices.Sort(out)
		return strings.Join(out, "")
	}
	if n := len(readLines(t, cloudCDXJ)); n < 10 {
		t.Errorf("%d records from Cloud Bigtable, want the demo's 10", n)
	}
	if a, b := strip(readLines(t, local)), strip(readLines(t, cloudCDXJ)); a != b {
		t.Errorf("records from Cloud Bigtable differ:\n%s\nwant:\n%s", b, a)
	}
}

// TestWARCRoundTripSameInstant: a store holding captures of one page in
// one millisecond with different bodies (imported from a WARC that gives
// them out of order) makes the trip through export --all-versions and
// crawl --from-warc intact: each body its own version, to the
// microsecond, with its URL, media type and anchors.
func TestWARCRoundTripSameInstant(t *testing.T) {
	needDemo(t)
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	page := func(text string) []byte {
		return []byte(`<html><body><a href="http://cnnsi.com/">` + text + `</a> <a href="http://cnnsi.com/` + text + `">more</a></body></html>`)
	}
	type capture struct {
		url  string
		at   time.Duration
		body []byte
	}
	caps := []capture{
		{"http://www.cnn.com/", 0, page("two")},
		{"http://cnnsi.com/", 0, []byte("<html>si</html>")},
		{"http://www.cnn.com/", time.Millisecond, page("one")},
		{"http://www.cnn.com/", 0, page("one")},
		{"http://www.cnn.com/", -time.Second, page("two")},
		{"http://www.cnn.com/", 0, page("three")},
		{"http://www.cnn.com/", 0, page("two")}, // the same capture twice
	}
	var buf bytes.Buffer
	w, err := archive.NewWriter(&buf, "in.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps {
		hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
		if err := w.Write(&archive.Capture{URL: c.url, Time: t0.Add(c.at), Status: 200, Header: hdr, Body: c.body}); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(dir, "in.warc.gz")
	os.WriteFile(in, buf.Bytes(), 0o644)
	importWARC := func(warc, db string) {
		out, err := exec.Command(filepath.Join(binDir, "crawl"), "--from-warc", warc, "--db", db, "--versions", "10").CombinedOutput()
		if err != nil {
			t.Fatalf("crawl --from-warc %s: %v\n%s", warc, err, out)
		}
	}
	first, second := filepath.Join(dir, "first.db"), filepath.Join(dir, "second.db")
	importWARC(in, first)
	out := filepath.Join(dir, "out.warc.gz")
	if code, stdout, stderr := runQuery("--db", first, "export", "--warc", out, "--all-versions"); code != exitOK {
		t.Fatalf("query export: exit %d, %s\n%s", code, stdout, stderr)
	}
	importWARC(out, second)
	// NB: to the millisecond, as a WARC carries times: the microsecond
	// a version takes in its millisecond counts the sightings there,
	// which no WARC record carries; the order of the versions travels.
	want, got := readTravels(t, first), toMillis(readTravels(t, second))
	// -1s two; at t0 two, one and three in sha256 order (two is a
	// sighting, equal to the version before it); one at t0+1ms: four
	// versions, two of them in t0's millisecond.
	ms := t0.UnixMilli()
	var inT0 int
	for _, v := range want.HTML["com.cnn.www/"] {
		if ts, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64); ts/1000 == ms {
			inT0++
		}
	}
	if len(want.HTML["com.cnn.www/"]) != 4 || inT0 != 2 {
		t.Fatalf("imported versions of com.cnn.www/: %v; want 4, 2 of them in the millisecond %d", want.HTML["com.cnn.www/"], ms)
	}
	want = toMillis(want)
	for name, pair := range map[string][2]any{
		"rows and contents:html versions": {want.HTML, got.HTML},
		"contents:url":                    {want.URL, got.URL},
		"mime:type":                       {want.MIME, got.MIME},
		"anchors":                         {want.Anchors, got.Anchors},
	} {
		w, _ := json.MarshalIndent(pair[0], "", " ")
		g, _ := json.MarshalIndent(pair[1], "", " ")
		if !bytes.Equal(w, g) {
			t.Errorf("%s differ after the round trip:\n--- after:\n%s\n--- before:\n%s", name, g, w)
		}
	}
}

// toMillis is tr with its versions' timestamps in whole milliseconds,
// their order kept.
func toMillis(tr travels) travels {
	for _, m := range []map[string][]string{tr.HTML, tr.URL} {
		for row, vs := range m {
			for i, v := range vs {
				ts, rest, _ := strings.Cut(v, " ")
				n, _ := strconv.ParseInt(ts, 10, 64)
				vs[i] = fmt.Sprintf("%d %s", n/1000, rest)
			}
			m[row] = vs
		}
	}
	return tr
}
