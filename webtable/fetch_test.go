package webtable

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// oldFormFetch writes f as a store written before the record was one cell
// holds it: a column per field, at the fetch's time, and its state.
func oldFormFetch(t *testing.T, w *WebTable, key string, f crawlstore.Fetch) {
	t.Helper()
	ts := timestamp(f.Time)
	m := bigtable.NewMutation()
	for col, v := range map[string]string{
		colURL: f.URL, colStatus: itoa(f.Status), colTime: formatTime(f.Time), colLength: itoa(int(f.Length)),
		colCharset: f.Charset, colETag: f.ETag, colLastModified: f.LastModified, colRedirect: f.Redirect,
		colError: f.Error, colTruncated: "false", colDepth: itoa(f.Depth), colLinks: itoa(f.Links), colLinksKept: itoa(f.LinksKept),
	} {
		m.Set(FamilyFetch, col, ts, []byte(v))
	}
	m.Set(FamilyFetch, colState, ts, []byte(f.State.String()))
	if err := w.tbl.Apply(context.Background(), key, m); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOldFormFetchRecord: a row whose fetch record is in the old form (a
// column per field), migrated, reads as it was written, through every
// reader of the record, and holds one fetch:record, so that none of the
// old facts is left behind by its next fetch.
func TestOldFormFetchRecord(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	old := crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 500, Time: t0, Length: 12, Charset: "iso-8859-1", ETag: `"x"`,
		LastModified: "Mon, 30 Nov 2026 11:00:00 GMT", Error: "server error", Depth: 2, Links: 7, LinksKept: 5, State: crawlstore.StateFailed}
	oldFormFetch(t, w, "com.cnn.www/", old)
	asOriginal(t, w)
	migrateAll(t, w)
	if diff := cmp.Diff([]string{"record", "state"}, fetchColumns(t, w, "com.cnn.www/")); diff != "" {
		t.Errorf("fetch columns of a migrated old-form row (-want +got):\n%s", diff)
	}

	got, ok, err := w.LastFetch(ctx, old.URL)
	if err != nil || !ok {
		t.Fatalf("LastFetch of an old-form row: %v, %v", ok, err)
	}
	if diff := cmp.Diff(old, got); diff != "" {
		t.Errorf("LastFetch of an old-form row (-written +read):\n%s", diff)
	}
	var times []time.Time
	if err := w.FetchTimes(ctx, nil, func(_ string, tm time.Time) bool { times = append(times, tm); return true }); err != nil {
		t.Fatal(err)
	}
	if len(times) != 1 || !times[0].Equal(t0) {
		t.Errorf("FetchTimes of an old-form row = %v, want [%v]", times, t0)
	}
	st, err := w.states(ctx, []string{"com.cnn.www/"})
	if err != nil {
		t.Fatal(err)
	}
	if s := st["com.cnn.www/"]; s.state != crawlstore.StateFailed || !s.time.Equal(t0) {
		t.Errorf("states of an old-form row = %+v, want failed at %v", s, t0)
	}
	var fails []Failure
	if err := w.Errors(ctx, nil, 0, func(f Failure) bool { fails = append(fails, f); return true }); err != nil {
		t.Fatal(err)
	}
	if len(fails) != 1 || fails[0].Fetch.Error != "server error" {
		t.Errorf("Errors of an old-form row = %+v, want its failure", fails)
	}

	// The next fetch: a success without validators or error.
	p := htmlPage(old.URL, t0.Add(time.Hour), "<p>back")
	if _, _, err := w.Save(ctx, &Fetched{Page: p, State: crawlstore.StateDone, StateTime: TimestampOf(p.Fetch.Time)}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"record", "state"}, fetchColumns(t, w, "com.cnn.www/")); diff != "" {
		t.Errorf("fetch columns after a fetch of an old-form row (-want +got):\n%s", diff)
	}
	got, _, err = w.LastFetch(ctx, old.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := p.Fetch
	want.State, want.SHA256, want.MediaType = crawlstore.StateDone, sha256Hex(p.Body), p.MIME
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LastFetch after the fetch (-want +got):\n%s", diff)
	}
}

func TestCorruptFetchRecordCellIsAClearError(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{`{"status":"200"}`, `{"time":"yesterday"}`, `{"depth":1.5}`, `not json`, `{"url":"a"} {}`, `null`, `[1]`} {
		w, _ := openTemp(t)
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colRecord, bigtable.Time(t0), []byte(v))
		if err := w.tbl.Apply(ctx, "com.cnn.www/", m); err != nil {
			t.Fatal(err)
		}
		_, _, err := w.LastFetch(ctx, "http://www.cnn.com/")
		if err == nil || !strings.Contains(err.Error(), `"com.cnn.www/"`) || !strings.Contains(err.Error(), "fetch:record") {
			t.Errorf("LastFetch of fetch:record %s = %v, want an error naming the row and column", v, err)
		}
	}
}

// TestFetchRecordForm: the record is the JSON a reader of the raw cell
// (query get) sees, empty fields left out, URLs unescaped.
func TestFetchRecordForm(t *testing.T) {
	f := crawlstore.Fetch{URL: "http://www.cnn.com/?a=1&b=<2>", Status: 200, Time: t0.Add(1500 * time.Microsecond), Length: 5120, Charset: "utf-8", Depth: 1, Links: 12, LinksKept: 10}
	const want = `{"url":"http://www.cnn.com/?a=1&b=<2>","status":200,"time":"2026-11-30T12:00:00.001Z","length":5120,"charset":"utf-8","depth":1,"links":12,"links_kept":10}`
	if got := string(encodeFetchRecord(f)); got != want {
		t.Errorf("encodeFetchRecord =\n%s\nwant\n%s", got, want)
	}
	if got := string(encodeFetchRecord(crawlstore.Fetch{})); got != `{}` {
		t.Errorf("encodeFetchRecord(Fetch{}) = %s, want {}", got)
	}
}

// FuzzFetchRecord: any bytes decode without a panic; a record that
// decodes encodes back to one that decodes the same; a fetch encodes to
// one that decodes to it (times in whole milliseconds, strings in UTF-8).
func FuzzFetchRecord(f *testing.F) {
	f.Add([]byte(`{"url":"http://www.cnn.com/","status":200,"time":"2026-11-30T12:00:00.001Z","length":5120,"charset":"utf-8","depth":1,"links":12,"links_kept":10}`),
		"http://a/", 200, int64(1700000000123), "x", true, 3)
	f.Add([]byte(`{"error":"dial tcp: refused","truncated":true,"unknown":[1,2]}`), "", 0, int64(0), "", false, 0)
	f.Add([]byte(`{"time":"2026-11-30T12:00:00+01:00"}`), "h\xffttp", -1, int64(-5), "\x00\"\\", false, -2)
	f.Fuzz(func(t *testing.T, v []byte, url string, status int, ms int64, s string, trunc bool, depth int) {
		var got crawlstore.Fetch
		if err := decodeFetchRecord(&got, v); err == nil {
			var again crawlstore.Fetch
			if err := decodeFetchRecord(&again, encodeFetchRecord(got)); err != nil {
				t.Fatalf("decoded %q, its encoding does not decode: %v", v, err)
			}
			// The time is stored in milliseconds, UTC.
			got.Time = got.Time.Truncate(time.Millisecond).UTC()
			if got.Time.Year() > 9999 || got.Time.Year() < 0 {
				return // RFC 3339 cannot hold it
			}
			if !again.Time.Equal(got.Time) {
				t.Fatalf("time %v encoded and decoded = %v", got.Time, again.Time)
			}
			again.Time = got.Time
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("decoded %q, encoded and decoded again (-first +again):\n%s", v, diff)
			}
		}
		if !utf8.ValidString(url) || !utf8.ValidString(s) {
			return // stored as U+FFFD
		}
		in := crawlstore.Fetch{URL: url, Status: status, Length: ms, ETag: s, Error: s, Truncated: trunc, Depth: depth, Links: depth, LinksKept: status}
		if ms > 0 && ms < 253402300799999 { // years 1970-9999
			in.Time = time.UnixMilli(ms).UTC()
		}
		out := crawlstore.Fetch{}
		if err := decodeFetchRecord(&out, encodeFetchRecord(in)); err != nil {
			t.Fatalf("the record of %+v does not decode: %v", in, err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Fatalf("encoded and decoded (-in +out):\n%s", diff)
		}
		// Shown field by field: every record that fits splits, and its
		// fields hold what was stored.
		RecordFields(v)
		if rec := encodeFetchRecord(in); len(rec) <= maxRecordFields {
			fields, ok := RecordFields(rec)
			if !ok {
				t.Fatalf("record %s does not split into fields", rec)
			}
			got := map[string]string{}
			for _, f := range fields {
				got[f.Name] = f.Value
			}
			if got["url"] != in.URL || got["error"] != in.Error || in.Status != 0 && got["status"] != strconv.Itoa(in.Status) || in.Truncated != (got["truncated"] == "true") {
				t.Fatalf("fields of %s = %q", rec, fields)
			}
		}
	})
}

// TestRecordFields: a fetch record splits into its fields in stored order;
// anything else is left for the caller to show as it is.
func TestRecordFields(t *testing.T) {
	got, ok := RecordFields([]byte(`{"url":"http://www.cnn.com/?a=1&b=2","status":200,"time":"2026-11-30T12:00:00.001Z","truncated":true,"links":1.5e3}`))
	want := []RecordField{{"url", "http://www.cnn.com/?a=1&b=2"}, {"status", "200"}, {"time", "2026-11-30T12:00:00.001Z"}, {"truncated", "true"}, {"links", "1.5e3"}}
	if !ok || !cmp.Equal(got, want) {
		t.Errorf("RecordFields = %q, %v; want %q", got, ok, want)
	}
	for _, v := range []string{``, `[]`, `"x"`, `{"a":null}`, `{"a":[1]}`, `{"a":{"b":1}}`, `{"a":1`, `{"a":1}{}`, `{"a":"` + strings.Repeat("x", maxRecordFields) + `"}`} {
		if got, ok := RecordFields([]byte(v)); ok {
			t.Errorf("RecordFields(%.40q) = %q, true; want not a record", v, got)
		}
	}
}

// TestOldFormRewrittenByEveryWriter: a redirect's source row and an
// imported capture's row, each holding an old-form record, migrated, are
// left with fetch:record and fetch:state only by those writers, reading
// the new fetch; so is a row in the current form.
func TestOldFormRewrittenByEveryWriter(t *testing.T) {
	ctx := context.Background()
	old := crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 500, Time: t0, Error: "server error", Depth: 1, State: crawlstore.StateFailed}
	later := t0.Add(time.Hour)
	for _, tc := range []struct {
		name  string
		write func(w *WebTable) error
		want  crawlstore.Fetch
	}{
		{"redirect source", func(w *WebTable) error {
			src := &Page{Fetch: crawlstore.Fetch{URL: old.URL, Status: 301, Time: later, Redirect: "http://edition.cnn.com/"}}
			_, _, err := w.Save(ctx, &Fetched{Page: htmlPage("http://edition.cnn.com/", later, "<p>e"), Source: src, State: crawlstore.StateDone, StateTime: TimestampOf(later)})
			return err
		}, crawlstore.Fetch{URL: old.URL, Status: 301, Time: later, Redirect: "http://edition.cnn.com/", State: crawlstore.StateDone}},
		{"import", func(w *WebTable) error {
			_, err := w.Import(ctx, &Capture{URL: old.URL, Time: later, Status: 200, MIME: "text/html", Body: []byte("<p>i")})
			return err
		}, crawlstore.Fetch{URL: old.URL, Status: 200, Time: later, Length: 4, State: crawlstore.StateDone}},
	} {
		for _, oldForm := range []bool{true, false} {
			w, _ := openTemp(t)
			if oldForm {
				oldFormFetch(t, w, "com.cnn.www/", old)
				asOriginal(t, w)
				migrateAll(t, w)
			}
			if err := tc.write(w); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff([]string{"record", "state"}, fetchColumns(t, w, "com.cnn.www/")); diff != "" {
				t.Errorf("%s (old form %v): fetch columns (-want +got):\n%s", tc.name, oldForm, diff)
			}
			got, _, err := w.LastFetch(ctx, old.URL)
			if err != nil {
				t.Fatal(err)
			}
			got.SHA256, got.MediaType = "", ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (old form %v): LastFetch (-want +got):\n%s", tc.name, oldForm, diff)
			}
		}
	}
}

// fetchColumns are the qualifiers of every cell of row's fetch family, all
// versions, in stored order.
func fetchColumns(t *testing.T, w *WebTable, row string) []string {
	t.Helper()
	r, err := w.Get(context.Background(), row, Query{Family: FamilyFetch, Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range r.Cells {
		cols = append(cols, c.Qualifier)
	}
	return cols
}
