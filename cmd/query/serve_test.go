package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/emulator"
)

// startServe runs "query serve" in-process on a free loopback port and
// returns its base URL; the server stops when the test ends.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), io.Discard, pw)
		pw.Close()
		done <- code
	}()
	lines := bufio.NewScanner(pr)
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`)
	var base string
	var head []string
	for lines.Scan() {
		head = append(head, lines.Text())
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("query serve printed no address; exit %d; output:\n%s", <-done, strings.Join(head, "\n"))
	}
	go io.Copy(io.Discard, pr) // later lines (errors) must not block the server
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("query serve exited with %d after Ctrl-C, want 0", code)
		}
	})
	return base
}

func TestServeStartupLineAndLock(t *testing.T) {
	needDemo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", demoDB, "--addr", "127.0.0.1:0"}, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var out []string
	for len(out) < 2 && sc.Scan() {
		out = append(out, sc.Text())
	}
	text := strings.Join(out, "\n")
	for _, want := range []string{"http://127.0.0.1:", "a crawl cannot start on " + demoDB, "crawl --serve"} {
		if !strings.Contains(text, want) {
			t.Errorf("start-up lines lack %q:\n%s", want, text)
		}
	}
	// While it serves, the store is held: a crawl on it is refused.
	crawl := runBinary(t, "crawl", "--db", demoDB, "--max-pages", "1", "http://127.0.0.1:1/")
	if crawl.code == 0 || !strings.Contains(crawl.stderr, "in use") {
		t.Errorf("crawl while query serve runs: exit %d, stderr %q; want a refusal saying the store is in use", crawl.code, crawl.stderr)
	}
	go io.Copy(io.Discard, pr)
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("query serve exited %d after Ctrl-C, want 0", code)
	}
}

func TestServeHelpSaysItHoldsTheStore(t *testing.T) {
	code, out, _ := runQuery("serve", "--help")
	for _, want := range []string{"a crawl cannot start on that store meanwhile", "crawl --serve", "--allow-remote", "127.0.0.1:8080"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("query serve --help: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
}

func TestServeRefusesARemoteAddressUnlessAllowed(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "[::]:0", "example.com:80"} {
		code, _, stderr := runQuery("serve", "--db", "nowhere.db", "--addr", addr)
		if code != exitUsage || !strings.Contains(stderr, "--allow-remote") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want %d and a word on --allow-remote", addr, code, stderr, exitUsage)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		if err := checkLoopback(addr, false); err != nil {
			t.Errorf("checkLoopback(%q) = %v, want nil", addr, err)
		}
	}
	if err := checkLoopback("0.0.0.0:0", true); err != nil {
		t.Errorf("checkLoopback(0.0.0.0:0, allowRemote) = %v, want nil", err)
	}
}

// TestServeJSONMatchesQuery checks that the interface's JSON uses the
// records "query --json" prints, on the demo store.
func TestServeJSONMatchesQuery(t *testing.T) {
	needDemo(t)
	base := startServe(t, "--db", demoDB)
	fetch := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+strings.TrimPrefix(path, "/"), nil)
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	same := func(what string, fromQuery string, fromUI any) {
		t.Helper()
		var q, u any
		if err := json.Unmarshal([]byte(fromQuery), &q); err != nil {
			t.Fatalf("%s from query: %v\n%s", what, err, fromQuery)
		}
		b, _ := json.Marshal(fromUI)
		json.Unmarshal(b, &u)
		qb, _ := json.Marshal(q)
		ub, _ := json.Marshal(u)
		if string(qb) != string(ub) {
			t.Errorf("%s differs:\nquery --json: %s\nquery serve:  %s", what, qb, ub)
		}
	}
	var page struct {
		Row      json.RawMessage   `json:"row"`
		Versions []json.RawMessage `json:"versions"`
		Anchors  []struct {
			Referrer string `json:"referrer"`
			Text     string `json:"text"`
		} `json:"anchors"`
	}
	fetch("/page?url=http://www.cnn.com/", &page)
	_, get, _ := runQuery("--db", demoDB, "get", "http://www.cnn.com/", "--json")
	// The page view gives the row without its anchors, and the anchors
	// (a page of them) apart.
	var row struct {
		Cells []map[string]any `json:"cells"`
		Row   string           `json:"row"`
	}
	if err := json.Unmarshal([]byte(get), &row); err != nil {
		t.Fatal(err)
	}
	var anchors []string
	cells := row.Cells[:0]
	for _, c := range row.Cells {
		if q, ok := strings.CutPrefix(fmt.Sprint(c["column"]), "anchor:"); ok {
			anchors = append(anchors, q+" "+fmt.Sprint(c["value"]))
			continue
		}
		cells = append(cells, c)
	}
	row.Cells = cells
	noAnchors, _ := json.Marshal(row)
	same("the row", string(noAnchors), page.Row)
	var shown []string
	for _, a := range page.Anchors {
		shown = append(shown, a.Referrer+" "+a.Text)
	}
	if len(anchors) == 0 || strings.Join(anchors, "\n") != strings.Join(shown, "\n") {
		t.Errorf("anchors: query get %q, the page view %q", anchors, shown)
	}
	_, vs, _ := runQuery("--db", demoDB, "versions", "http://www.cnn.com/", "--json")
	lines := strings.Split(strings.TrimSpace(vs), "\n")
	if len(lines) != len(page.Versions) {
		t.Fatalf("query versions gives %d versions, serve %d", len(lines), len(page.Versions))
	}
	for i := range lines {
		same(fmt.Sprintf("version %d", i), lines[i], page.Versions[i])
	}
	var failures struct {
		Failures []json.RawMessage `json:"failures"`
	}
	fetch("/errors", &failures)
	_, errs, _ := runQuery("--db", demoDB, "errors", "--json")
	lines = strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != len(failures.Failures) {
		t.Fatalf("query errors gives %d failures, serve %d", len(lines), len(failures.Failures))
	}
	for i := range lines {
		same(fmt.Sprintf("failure %d", i), lines[i], failures.Failures[i])
	}
	var domain struct {
		Rows []struct {
			Row string `json:"row"`
		} `json:"rows"`
	}
	fetch("/domain?name=cnn.com", &domain)
	_, keys, _ := runQuery("--db", demoDB, "scan", "--domain", "cnn.com", "--keys-only")
	var got []string
	for _, r := range domain.Rows {
		got = append(got, r.Row)
	}
	if want := strings.Fields(keys); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows of cnn.com: serve %q, query scan %q", got, want)
	}
}

// binResult is what a run of one of the built programs gave.
type binResult struct {
	code           int
	stdout, stderr string
}

// runBinary runs a program built by TestMain, with a minute to finish.
func runBinary(t *testing.T, prog string, args ...string) binResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, prog), args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return binResult{0, out.String(), errb.String()}
	case errors.As(err, &ee):
		return binResult{ee.ExitCode(), out.String(), errb.String()}
	}
	t.Fatalf("%s: %v", prog, err)
	return binResult{}
}

// TestServeOnCloudBigtable serves a copy of the demo table from Cloud
// Bigtable (the emulator) and reads a page, a domain and the schema.
func TestServeOnCloudBigtable(t *testing.T) {
	needDemo(t)
	emulator.Start(t)
	const db = "bigtable://p/serve"
	if code, _, stderr := runQuery("--db", demoDB, "export", "--to", db); code != exitOK {
		t.Fatalf("export to the emulator: exit %d\n%s", code, stderr)
	}
	base := startServe(t, "--db", db)
	getJSON := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+strings.TrimPrefix(path, "/"), nil)
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var page struct {
		Versions []json.RawMessage `json:"versions"`
		Anchors  []struct {
			Referrer, Text string
		} `json:"anchors"`
	}
	getJSON("/page?url=http://www.cnn.com/", &page)
	if len(page.Versions) != 3 || len(page.Anchors) == 0 {
		t.Errorf("www.cnn.com/ from Cloud Bigtable: %d versions, %d anchors; want 3 and some", len(page.Versions), len(page.Anchors))
	}
	var domain struct {
		Rows []json.RawMessage `json:"rows"`
	}
	getJSON("/domain?name=cnn.com", &domain)
	_, keys, _ := runQuery("--db", demoDB, "scan", "--domain", "cnn.com", "--keys-only")
	if len(domain.Rows) != len(strings.Fields(keys)) {
		t.Errorf("cnn.com from Cloud Bigtable: %d rows, want %d", len(domain.Rows), len(strings.Fields(keys)))
	}
	var overview struct {
		Families []struct {
			Name     string `json:"name"`
			GCPolicy string `json:"gc_policy"`
		} `json:"families"`
	}
	getJSON("/", &overview)
	if len(overview.Families) != 4 || overview.Families[1].Name != "contents" || overview.Families[1].GCPolicy == "" {
		t.Errorf("families from Cloud Bigtable %+v, want four with their GC policies", overview.Families)
	}
}

// TestServeLiveStore points query serve at a store that a crawl holds and
// serves (crawl --serve, here with nothing left to crawl): it reads the
// store through the crawl's server and says so.
func TestServeLiveStore(t *testing.T) {
	needDemo(t)
	db := filepath.Join(t.TempDir(), "live.db")
	if err := os.CopyFS(db, os.DirFS(demoDB)); err != nil {
		t.Fatal(err)
	}
	crawl := exec.Command(filepath.Join(binDir, "crawl"), "--db", db, "--serve", "127.0.0.1:0")
	crawl.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	stderr, err := crawl.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := crawl.Start(); err != nil {
		t.Fatal(err)
	}
	defer crawl.Process.Kill()
	serving := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if !found && strings.HasPrefix(sc.Text(), "serving "+db+" on ") {
				found = true
				serving <- true
			}
		}
		if !found {
			serving <- false
		}
	}()
	if !<-serving {
		t.Fatalf("crawl --serve never said it serves %s", db)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	go io.Copy(io.Discard, pr)
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "is being crawled: reading it through the crawl's server") || strings.Contains(text, "stays locked") {
		t.Errorf("start-up lines on a served store:\n%s\nwant the word that it reads through the crawl's server", text)
	}
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(text)
	req, _ := http.NewRequest("GET", base+"page?url=http://www.cnn.com/", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Versions []json.RawMessage `json:"versions"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(page.Versions) != 3 {
		t.Errorf("www.cnn.com/ through the crawl's server: %s, %v, %d versions; want 200 and 3", resp.Status, err, len(page.Versions))
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("query serve exited %d, want 0", code)
	}
	crawl.Process.Signal(os.Interrupt)
	crawl.Wait()
}

// TestServeRefusesAForeignHost sends query serve a request naming another
// host, as a browser does for a name a web page pointed at 127.0.0.1 (DNS
// rebinding): 421, and no table data; its own address and localhost work.
func TestServeRefusesAForeignHost(t *testing.T) {
	needDemo(t)
	base := startServe(t, "--db", demoDB)
	port := strings.TrimSuffix(base[strings.LastIndexByte(base, ':')+1:], "/")
	for host, want := range map[string]int{
		"":                                 http.StatusOK, // the address served
		"localhost:" + port:                http.StatusOK,
		"rebind.example:" + port:           http.StatusMisdirectedRequest,
		"localhost.rebind.example:" + port: http.StatusMisdirectedRequest,
	} {
		req, err := http.NewRequest("GET", base+"?refresh=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json")
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, want)
		}
		if want != http.StatusOK && strings.Contains(string(b), "cnn") {
			t.Errorf("Host %q: the refusal shows table data: %s", host, b)
		}
	}
}
