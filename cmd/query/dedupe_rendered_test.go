package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestWARCDedupeRendered: export --dedupe of rendered pages writes, after
// each revisit record, the page's own conversion record (the rendered
// DOM in full, even when it equals an earlier one) referring to the
// revisit; warcio reads every record and indexes the file as we do (a
// line for each conversion too); crawl --from-warc gives every version back its
// contents:rendered and the links only the rendered DOM has.
func TestWARCDedupeRendered(t *testing.T) {
	needDemo(t)
	node, cli := warcioCLI(t)
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	shell := []byte(`<html><body><div id="app"></div><script src="/app.js"></script></body></html>`)
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	caps := []archive.Capture{
		{URL: "http://spa.test/p/0", Rendered: []byte(`<html><body><a href="http://spa.test/p/1">one</a></body></html>`)},
		{URL: "http://spa.test/p/1", Rendered: []byte(`<html><body><a href="http://spa.test/p/2">two</a></body></html>`)},
		{URL: "http://spa.test/p/2", Rendered: []byte(`<html><body><a href="http://spa.test/p/2">two</a></body></html>`)}, // the DOM of /p/1
	}
	var buf bytes.Buffer
	w, err := archive.NewWriter(&buf, "in.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	for i := range caps {
		c := &caps[i]
		c.Time, c.Status, c.Header, c.Body = t0.Add(time.Duration(i)*time.Minute), 200, hdr, shell
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(dir, "in.warc.gz")
	os.WriteFile(in, buf.Bytes(), 0o644)
	importWARC := func(warc, db string) {
		if out, err := exec.Command(filepath.Join(binDir, "crawl"), "--from-warc", warc, "--db", db).CombinedOutput(); err != nil {
			t.Fatalf("crawl --from-warc %s: %v\n%s", warc, err, out)
		}
	}
	first, second := filepath.Join(dir, "first.db"), filepath.Join(dir, "second.db")
	importWARC(in, first)
	out, cdxj := filepath.Join(dir, "out.warc.gz"), filepath.Join(dir, "out.cdxj")
	code, stdout, stderr := runQuery("--db", first, "export", "--warc", out, "--cdxj", cdxj, "--all-versions", "--dedupe")
	if code != exitOK || !strings.Contains(stdout, "2 of them revisit records") {
		t.Fatalf("query export --dedupe: exit %d, %q, want 2 revisit records\n%s", code, stdout, stderr)
	}
	checkWarcioConversions(t, node, cli, out, cdxj)

	importWARC(out, second)
	want := map[string]string{}
	for _, c := range caps {
		want[c.URL+" "+c.Time.Format(time.RFC3339)] = string(c.Rendered)
	}
	for _, db := range []string{first, second} {
		if got := renderedVersions(t, db); !mapsEqual(got, want) {
			t.Errorf("contents:rendered of %s = %q, want %q", filepath.Base(db), got, want)
		}
	}
	if tr := readTravels(t, second); tr.Anchors["test.spa/p/2 <- spa.test/p/1"] != "two" {
		t.Errorf("after the round trip no anchor points to /p/2, which only the rendered DOM of /p/1 links to: %v", tr.Anchors)
	}
}

// checkWarcioConversions reads the WARC out with warcio: each revisit is
// followed by a conversion referring to it, and warcio's CDXJ is ours.
func checkWarcioConversions(t *testing.T, node, cli, out, cdxj string) {
	t.Helper()
	idx, err := exec.Command(node, cli, "index", out, "--fields", "warc-type,warc-target-uri,warc-record-id,warc-refers-to").Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	var types []string
	var prev map[string]string
	for _, l := range strings.Split(strings.TrimSpace(string(idx)), "\n") {
		var r map[string]string
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("warcio index line %q: %v", l, err)
		}
		types = append(types, r["warc-type"])
		if r["warc-type"] == "conversion" && (prev == nil || r["warc-refers-to"] != prev["warc-record-id"] || r["warc-target-uri"] != prev["warc-target-uri"]) {
			t.Errorf("warcio read conversion %v after %v: want it to refer to the record before it", r, prev)
		}
		prev = r
	}
	wantTypes := []string{"warcinfo", "response", "conversion", "revisit", "conversion", "revisit", "conversion"}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("warcio read records %q, want %q", types, wantTypes)
	}
	theirs, err := exec.Command(node, cli, "cdx-index", out).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(theirs)), "\n")
	slices.Sort(lines)
	ours := strings.Split(strings.TrimSpace(strings.Join(readLines(t, cdxj), "")), "\n")
	if !slices.Equal(ours, lines) || len(ours) != 6 {
		t.Errorf("CDXJ differs from warcio cdx-index (want a line per response, revisit and conversion):\n--- ours:\n%s\n--- warcio:\n%s", strings.Join(ours, "\n"), strings.Join(lines, "\n"))
	}
}

// renderedVersions returns the contents:rendered of every stored version
// of db, by URL and time.
func renderedVersions(t *testing.T, db string) map[string]string {
	t.Helper()
	ctx := context.Background()
	w, err := stores.Open(ctx, db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := map[string]string{}
	err = w.Captures(ctx, nil, webtable.Selection{All: true}, func(c *webtable.Capture) error {
		got[c.URL+" "+c.Time.Format(time.RFC3339)] = string(c.Rendered)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}
