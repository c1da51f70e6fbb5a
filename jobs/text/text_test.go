package text_test

import (
	"bytes"
	"context"
	"log"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/text"
)

func TestLang(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The committee will publish its report on the new railway next spring, and the farmers say the summer was dry.", "en"},
		{"Le comité publiera son rapport sur la nouvelle ligne de chemin de fer au printemps prochain.", "fr"},
		{"Der Ausschuss wird seinen Bericht über die neue Eisenbahnstrecke im nächsten Frühjahr veröffentlichen.", "de"},
		{"El comité publicará su informe sobre el nuevo ferrocarril la próxima primavera.", "es"},
		{"Комитет опубликует свой доклад о новой железной дороге следующей весной.", "ru"},
		{"委員会は来春、新しい鉄道に関する報告書を公表する予定です。", "ja"},
		{"委员会将于明年春天发布关于新铁路的报告。", "zh"},
		{"12345 !!! ---", ""},
	}
	for _, tc := range tests {
		if got := text.Lang(tc.in); got != tc.want {
			t.Errorf("Lang(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTextJob(t *testing.T) {
	dir := t.TempDir()
	w, tbl := jobstest.OpenDB(t, dir, 0)
	defer w.Close()
	jobstest.Store(t, w, []jobstest.Page{
		{URL: "http://a.example/", HTML: "<html><head><title>Report</title><script>var x;</script></head><body><p>The committee will publish its report on the new railway next spring.</p></body></html>"},
		{URL: "http://b.example/", HTML: "<title>Rapport</title><p>Le comité publiera son rapport sur la nouvelle ligne de chemin de fer au printemps prochain.</p>"},
		{URL: "http://c.example/logo.png", HTML: "\x89PNG", MIME: "image/png"},
		{URL: "http://d.example/", HTML: "<title>Damaged</title><p>These bytes will be changed after they are stored.</p>"},
	})
	// Damage d's stored body: its contents:sha256 no longer matches.
	ctx := context.Background()
	row, err := tbl.ReadRow(ctx, "example.d/")
	if err != nil || len(row["contents"]) == 0 {
		t.Fatalf("reading d's row: %v %v", row, err)
	}
	for _, it := range row["contents"] {
		if it.Column == "contents:html" {
			m := bigtable.NewMutation()
			m.Set("contents", "html", it.Timestamp, []byte("<p>changed</p>"))
			if err := tbl.Apply(ctx, "example.d/", m); err != nil {
				t.Fatal(err)
			}
		}
	}
	var logs bytes.Buffer
	sum, err := jobs.Run(ctx, w, text.Job{}, jobs.Config{Log: log.New(&logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	titles := jobstest.Column(t, w, "text:title")
	langs := jobstest.Column(t, w, "text:lang")
	bodies := jobstest.Column(t, w, "text:body")
	if titles["example.a/"] != "Report" || langs["example.a/"] != "en" || langs["example.b/"] != "fr" {
		t.Errorf("titles %q, languages %q; want a: Report, en; b: fr", titles, langs)
	}
	if strings.Contains(bodies["example.a/"], "var x") || !strings.Contains(bodies["example.a/"], "railway next spring") {
		t.Errorf("text:body of a = %q, want its visible text without the script", bodies["example.a/"])
	}
	if _, ok := langs["example.c/logo.png"]; ok {
		t.Errorf("the PNG got text cells; want none (not HTML)")
	}
	if _, ok := langs["example.d/"]; ok || sum.Counts.Bad != 1 || !strings.Contains(logs.String(), `"example.d/"`) {
		t.Errorf("damaged row: text cells %v, bad %d, log %q; want none, 1, a line naming example.d/", ok, sum.Counts.Bad, logs.String())
	}
	if sum.Counts.Other != 1 {
		t.Errorf("rows with nothing to do = %d, want 1 (the PNG)", sum.Counts.Other)
	}
}
