package webui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestPageView(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	var p jsonPage
	getJSON(t, srv, "/page?url=http://www.cnn.com/", &p)
	if p.Row.Row != "com.cnn.www/" || p.URL != "http://www.cnn.com/" || p.MIME != "text/html" {
		t.Errorf("page row %q url %q mime %q, want com.cnn.www/, http://www.cnn.com/, text/html", p.Row.Row, p.URL, p.MIME)
	}
	if len(p.Versions) != 2 || p.Versions[0].Timestamp <= p.Versions[1].Timestamp || p.Versions[0].Status != 200 || len(p.Versions[0].SHA256) != 64 {
		t.Errorf("versions %+v, want two, newest first, status 200, full SHA-256", p.Versions)
	}
	anchors := map[string]string{}
	for _, a := range p.Anchors {
		anchors[a.Referrer] = a.Text + " -> " + a.Row
	}
	if anchors["cnnsi.com"] != "CNN -> com.cnnsi/" || anchors["my.look.ca"] != "CNN.com -> ca.look.my/" {
		t.Errorf("anchors %v, want cnnsi.com = CNN and my.look.ca = CNN.com with their rows", anchors)
	}
	var si jsonPage
	getJSON(t, srv, "/page?url=http://cnnsi.com/", &si)
	if len(si.Links) != 1 || si.Links[0].URL != "http://www.cnn.com/" || si.Links[0].Row != "com.cnn.www/" || si.Links[0].Text != "CNN" {
		t.Errorf("cnnsi.com links %+v, want the one to http://www.cnn.com/ (CNN)", si.Links)
	}
	var evil jsonPage
	getJSON(t, srv, "/page?url=http://evil.test/", &evil)
	var links []string
	for _, l := range evil.Links {
		links = append(links, l.URL)
	}
	// The <base> of a stored page is honoured for its links, javascript: dropped.
	if want := []string{"http://attacker.test/next"}; !slices.Equal(links, want) {
		t.Errorf("evil.test links %q, want %q", links, want)
	}
	_, html := get(t, srv, "/page?url=http://www.cnn.com/", false)
	for _, want := range []string{"CNN.com", `href="/page?row=com.cnnsi%2f"`, "<iframe class=\"body\" sandbox", "changes since the previous version",
		// The fetch record a field per line, not one JSON string.
		"<dt>url</dt><dd>http://www.cnn.com/</dd><dt>status</dt><dd>200</dd>", "<dt>charset</dt><dd>utf-8</dd>"} {
		if !strings.Contains(html, want) {
			t.Errorf("page HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "&#34;status&#34;") {
		t.Errorf("page HTML shows the fetch record as JSON")
	}
	_, html = get(t, srv, "/page?url=http://www.cnn.com/missing", false)
	if want := "<dt>error</dt><dd>HTTP 404 &lt;b&gt;Not Found&lt;/b&gt;</dd>"; !strings.Contains(html, want) {
		t.Errorf("page HTML of a failed fetch lacks %q (its error, escaped)", want)
	}
}

func TestDiffView(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	var p jsonPage
	getJSON(t, srv, "/page?url=http://www.cnn.com/", &p)
	var d jsonDiff
	getJSON(t, srv, "/diff?row=com.cnn.www/&a="+itoa(p.Versions[1].Timestamp)+"&b="+itoa(p.Versions[0].Timestamp), &d)
	var got []string
	for _, h := range d.Hunks {
		for _, o := range h {
			got = append(got, o.Op+o.Text)
		}
	}
	want := []string{" CNN", " News", "-old headline", "+new headline", " same"}
	if !slices.Equal(got, want) || !d.Exact || d.Truncated {
		t.Errorf("diff = %q (exact %v, truncated %v), want %q", got, d.Exact, d.Truncated, want)
	}
	_, html := get(t, srv, "/diff?row=com.cnn.www/&a="+itoa(p.Versions[1].Timestamp)+"&b="+itoa(p.Versions[0].Timestamp), false)
	if !strings.Contains(html, `<tr class="del">`) || !strings.Contains(html, "new headline") {
		t.Errorf("diff HTML lacks the removed row or the new line:\n%s", html)
	}
}

func TestOverview(t *testing.T) {
	_, srv := serve(t, fixture(t, 3), Options{})
	var o jsonOverview
	getJSON(t, srv, "/", &o)
	if o.Table != "webtable" || !slices.Contains(o.Tables, "webtable") || len(o.Families) != 4 {
		t.Fatalf("overview table %q tables %v families %v", o.Table, o.Tables, o.Families)
	}
	gc := map[string]string{}
	for _, f := range o.Families {
		gc[f.Name] = f.GCPolicy
	}
	if gc["contents"] != "versions() > 3" || gc["anchor"] != "versions() > 1" {
		t.Errorf("GC policies %v, want contents versions() > 3, anchor versions() > 1", gc)
	}
	s := o.Summary
	if !s.Ready || s.Stats == nil {
		t.Fatalf("summary %+v, want ready with stats", s)
	}
	// www.cnn.com/, cnnsi.com/, evil.test/, evil.test/pic.svg and 3 example.org pages done, one failure.
	if s.Stats.Fetched != 7 || s.Stats.Failed != 1 || s.Stats.Versions != 8 {
		t.Errorf("stats %+v, want 7 done, 1 failed, 8 versions", *s.Stats)
	}
	var fetches int64
	for _, b := range s.Fetches {
		fetches += b.Count
	}
	if fetches != 8 { // every row with a fetch:time, the failure included
		t.Errorf("chart counts %d fetches, want 8", fetches)
	}
	var tops []string
	for _, d := range s.Domains {
		tops = append(tops, d.Name)
	}
	// my.look.ca links to www.cnn.com but has no row of its own.
	if !slices.Equal(tops, []string{"com", "org", "test"}) {
		t.Errorf("top domains %q, want com, org, test", tops)
	}
	_, html := get(t, srv, "/", false)
	for _, want := range []string{`href="/domain?name=cnn.com"`, "keep the 3 newest versions", "<svg", "Counted"} {
		if !strings.Contains(html, want) {
			t.Errorf("overview HTML lacks %q", want)
		}
	}
}

// TestDomainRowsPagedByCursor walks a domain's rows two at a time and
// checks it sees every row once, in key order.
func TestDomainRowsPagedByCursor(t *testing.T) {
	_, srv := serve(t, fixture(t, 5), Options{PageSize: 2})
	var all []string
	after := ""
	for page := 0; ; page++ {
		if page > 10 {
			t.Fatal("paging does not end")
		}
		var d jsonDomainView
		getJSON(t, srv, "/domain?name=example.org&after="+after, &d)
		if len(d.Rows) > 2 {
			t.Fatalf("page of %d rows, want at most 2", len(d.Rows))
		}
		for _, r := range d.Rows {
			all = append(all, r.Row)
			if len(r.Cells) == 0 || !strings.HasPrefix(r.Cells[0].Column, "fetch:") {
				t.Errorf("row %s listed without its fetch cells: %+v", r.Row, r.Cells)
			}
		}
		if d.Next == "" {
			break
		}
		after = d.Next
	}
	want := []string{"org.example.www/pa", "org.example.www/pb", "org.example.www/pc", "org.example.www/pd", "org.example.www/pe"}
	if !slices.Equal(all, want) {
		t.Errorf("rows over all pages %q, want %q", all, want)
	}
	var tree jsonDomainView
	getJSON(t, srv, "/domain?name=example.org", &tree)
	if len(tree.Subdomains) != 1 || tree.Subdomains[0].Name != "www.example.org" || tree.Subdomains[0].Rows != 5 {
		t.Errorf("subdomains of example.org %+v, want www.example.org with 5 rows", tree.Subdomains)
	}
	var root jsonDomainView
	getJSON(t, srv, "/domain", &root)
	if len(root.Subdomains) != 3 || len(root.Rows) != 0 {
		t.Errorf("root of the tree: %d top domains and %d rows, want 3 and none", len(root.Subdomains), len(root.Rows))
	}
}

func TestFailuresView(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	var f jsonFailures
	getJSON(t, srv, "/errors", &f)
	if len(f.Failures) != 1 || f.Failures[0].URL != "http://www.cnn.com/missing" || f.Failures[0].Status != 404 || f.Next != "" {
		t.Fatalf("failures %+v (next %q), want the one of www.cnn.com/missing, 404, no next page", f.Failures, f.Next)
	}
	getJSON(t, srv, "/errors?after=com.cnn.www/missing", &f)
	if len(f.Failures) != 0 {
		t.Errorf("failures after the only one: %+v, want none", f.Failures)
	}
	getJSON(t, srv, "/errors?domain=example.org", &f)
	if len(f.Failures) != 0 {
		t.Errorf("failures in example.org: %+v, want none", f.Failures)
	}
}

// TestViewsDoNotWaitForTheSummary holds the summary build and reads every
// view: each answers, the overview saying the counts are being made.
func TestViewsDoNotWaitForTheSummary(t *testing.T) {
	w := fixture(t, 0)
	release := make(chan struct{})
	ui, err := newUI(w, Options{}, func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ui.Close()
	srv := httptestServer(t, ui)
	_, html := get(t, srv, "/", false)
	if !strings.Contains(html, "Counting the whole table in the background") {
		t.Errorf("overview while counting does not say so:\n%s", html)
	}
	for _, path := range []string{"/domain?name=cnn.com", "/page?url=http://www.cnn.com/", "/errors", "/tablets"} {
		if resp, body := get(t, srv, path, false); resp.StatusCode != 200 {
			t.Errorf("GET %s while counting: %s\n%s", path, resp.Status, body)
		}
	}
	var o jsonOverview
	getJSON(t, srv, "/", &o)
	if o.Summary.Ready || !o.Summary.Building {
		t.Errorf("summary while counting %+v, want building, not ready", o.Summary)
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ui.WaitSummary(ctx); err != nil {
		t.Fatal(err)
	}
	getJSON(t, srv, "/", &o)
	if !o.Summary.Ready || o.Summary.Stats == nil || o.Summary.Stats.Rows == 0 {
		t.Errorf("summary after the build %+v, want ready with counts", o.Summary)
	}
}

// TestAddressesInTheTree checks that hosts given as IP addresses are leaves
// of the tree, with their rows, and not split into labels.
func TestAddressesInTheTree(t *testing.T) {
	w := fixture(t, 0)
	ctx := context.Background()
	for _, u := range []string{"http://127.0.0.1:8080/x", "http://127.0.0.1/y", "http://[::1]/z"} {
		p := &webtable.Page{Fetch: crawlstore.Fetch{URL: u, Status: 200, Time: t0}, MIME: "text/html", KeepBody: true, Body: []byte("<p>" + u)}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	_, srv := serve(t, w, Options{})
	var root jsonDomainView
	getJSON(t, srv, "/domain", &root)
	rows := map[string]int64{}
	for _, d := range root.Subdomains {
		rows[d.Name] = d.Rows
	}
	if rows["127.0.0.1"] != 2 || rows["[::1]"] != 1 || rows["127"] != 0 {
		t.Errorf("top of the tree %v, want 127.0.0.1 with 2 rows and [::1] with 1", rows)
	}
	var ip jsonDomainView
	getJSON(t, srv, "/domain?name=127.0.0.1", &ip)
	var keys []string
	for _, r := range ip.Rows {
		keys = append(keys, r.Row)
	}
	if !slices.Equal(keys, []string{"127.0.0.1/y", "127.0.0.1:8080/x"}) {
		t.Errorf("rows of 127.0.0.1: %q", keys)
	}
}

// TestTreeBoundedByMaxHosts checks that the summary keeps at most maxHosts
// hosts and says the tree is partial, while rows stay reachable by name.
func TestTreeBoundedByMaxHosts(t *testing.T) {
	old := maxHosts
	maxHosts = 2
	defer func() { maxHosts = old }()
	_, srv := serve(t, fixture(t, 1), Options{})
	var o jsonOverview
	getJSON(t, srv, "/", &o)
	if !o.Summary.Partial {
		t.Errorf("summary of 5 hosts with room for 2 is not marked partial")
	}
	var hosts int64
	for _, d := range o.Summary.Domains {
		hosts += d.Rows
	}
	if hosts == 0 || hosts > 2*2 {
		t.Errorf("tree holds %d rows, want the rows of at most 2 hosts", hosts)
	}
	var d jsonDomainView
	getJSON(t, srv, "/domain?name=example.org", &d)
	if len(d.Rows) != 1 {
		t.Errorf("example.org lists %d rows whatever the tree holds, want 1", len(d.Rows))
	}
	_, html := get(t, srv, "/", false)
	if !strings.Contains(html, "more hosts than the tree keeps") {
		t.Errorf("the overview does not say the tree is incomplete")
	}
}

// TestSummaryRebuiltWhenOld moves the clock and checks when a view starts
// a new build: not before SummaryMaxAge, nor before ten times the last
// build's duration.
func TestSummaryRebuiltWhenOld(t *testing.T) {
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	ui, srv := serve(t, fixture(t, 0), Options{Now: clock, SummaryMaxAge: time.Minute})
	first, _, _ := ui.current()
	// The build took no time on the fake clock; pretend it took 10 s.
	ui.sum.mu.Lock()
	first.Took = 10 * time.Second
	ui.sum.mu.Unlock()
	for _, step := range []struct {
		advance time.Duration
		rebuild bool
	}{
		{59 * time.Second, false}, // younger than SummaryMaxAge
		{40 * time.Second, false}, // 99 s: older than a minute, younger than 10 × 10 s
		{2 * time.Second, true},   // 101 s
	} {
		advance(step.advance)
		get(t, srv, "/", false)
		_, building, _ := ui.current()
		s, _, _ := ui.current()
		if rebuilt := building || s != first; rebuilt != step.rebuild {
			t.Fatalf("after %v more: rebuilt %v, want %v", step.advance, rebuilt, step.rebuild)
		}
	}
}
