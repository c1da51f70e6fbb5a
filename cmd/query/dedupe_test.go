package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/archive"
)

// TestWARCDedupeRoundTrip: export --dedupe writes a body already in the
// file as a revisit record (identical-payload-digest, naming the first
// record); warcio indexes the file; crawl --from-warc reads the revisits
// back, so the round trip gives the versions of the source store.
func TestWARCDedupeRoundTrip(t *testing.T) {
	needDemo(t)
	node, cli := warcioCLI(t)
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	shared := []byte(`<html><body>the same page at two URLs <a href="http://www.cnn.com/b">b</a></body></html>`)
	a, b := []byte(`<html><body>A <a href="http://www.cnn.com/">home</a></body></html>`), []byte(`<html><body>B</body></html>`)
	caps := []struct {
		url  string
		at   time.Duration
		body []byte
	}{
		{"http://www.cnn.com/", 0, a},
		{"http://www.cnn.com/", time.Hour, b},
		{"http://www.cnn.com/", 2 * time.Hour, a}, // back to A: a version of its own, a revisit in the export
		{"http://www.cnn.com/x", 0, shared},
		{"http://www.cnn.com/y", time.Minute, shared}, // another URL, the same body
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
	importWARC := func(warc, db string) string {
		out, err := exec.Command(filepath.Join(binDir, "crawl"), "--from-warc", warc, "--db", db).CombinedOutput()
		if err != nil {
			t.Fatalf("crawl --from-warc %s: %v\n%s", warc, err, out)
		}
		return string(out)
	}
	first, second := filepath.Join(dir, "first.db"), filepath.Join(dir, "second.db")
	importWARC(in, first)
	out, cdxj := filepath.Join(dir, "out.warc.gz"), filepath.Join(dir, "out.cdxj")
	code, stdout, stderr := runQuery("--db", first, "export", "--warc", out, "--cdxj", cdxj, "--all-versions", "--dedupe")
	if code != exitOK || !strings.Contains(stdout, "2 of them revisit records") {
		t.Fatalf("query export --dedupe: exit %d, %q, want 2 revisit records\n%s", code, stdout, stderr)
	}

	idx, err := exec.Command(node, cli, "index", out, "--fields", "warc-type,warc-target-uri,warc-refers-to-target-uri,warc-refers-to-date,warc-profile").Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	var revisits []string
	for _, l := range strings.Split(strings.TrimSpace(string(idx)), "\n") {
		var r map[string]string
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("warcio index line %q: %v", l, err)
		}
		if r["warc-type"] == "revisit" {
			if r["warc-profile"] != archive.ProfileIdenticalPayload {
				t.Errorf("revisit %s has profile %q", r["warc-target-uri"], r["warc-profile"])
			}
			revisits = append(revisits, r["warc-target-uri"]+" -> "+r["warc-refers-to-target-uri"]+" "+r["warc-refers-to-date"])
		}
	}
	slices.Sort(revisits)
	want := []string{
		"http://www.cnn.com/ -> http://www.cnn.com/ 2026-01-02T03:04:05.000Z",
		"http://www.cnn.com/y -> http://www.cnn.com/x 2026-01-02T03:04:05.000Z",
	}
	if !slices.Equal(revisits, want) {
		t.Errorf("warcio read revisits %q, want %q", revisits, want)
	}
	theirs, err := exec.Command(node, cli, "cdx-index", out).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v", err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(theirs), "\n"), "\n")
	slices.Sort(lines)
	if ours := readLines(t, cdxj); strings.Join(ours, "") != strings.Join(lines, "") {
		t.Errorf("CDXJ differs from warcio cdx-index:\n--- ours:\n%s--- warcio:\n%s", strings.Join(ours, ""), strings.Join(lines, ""))
	}

	log := importWARC(out, second)
	if !strings.Contains(log, "2 revisits read as versions of their rows") {
		t.Errorf("crawl --from-warc of the deduplicated file does not say it read 2 revisits:\n%s", log)
	}
	before, after := toMillis(readTravels(t, first)), toMillis(readTravels(t, second))
	if len(before.HTML["com.cnn.www/"]) != 3 {
		t.Fatalf("source versions of com.cnn.www/: %v, want 3 (A, B, A)", before.HTML["com.cnn.www/"])
	}
	for name, pair := range map[string][2]any{
		"rows and contents:html versions": {before.HTML, after.HTML},
		"contents:url":                    {before.URL, after.URL},
		"mime:type":                       {before.MIME, after.MIME},
		"anchors":                         {before.Anchors, after.Anchors},
	} {
		w, _ := json.MarshalIndent(pair[0], "", " ")
		g, _ := json.MarshalIndent(pair[1], "", " ")
		if !bytes.Equal(w, g) {
			t.Errorf("%s differ after the deduplicated round trip:\n--- after:\n%s\n--- before:\n%s", name, g, w)
		}
	}
}
