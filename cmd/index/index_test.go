package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/webtable/webtable/jobs/jobstest"
)

// binDir holds the binary binary builds; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds cmd/index once per test binary.
var binary = func() func(t *testing.T) string {
	var path string
	var err error
	built := false
	return func(t *testing.T) string {
		t.Helper()
		if !built {
			built = true
			dir, derr := os.MkdirTemp("", "index-bin")
			if derr != nil {
				t.Fatal(derr)
			}
			binDir = dir
			path = filepath.Join(dir, "index")
			out, berr := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
			if berr != nil {
				err = fmt.Errorf("go build: %v\n%s", berr, out)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
}()

var sentences = strings.Split(`The committee will publish its report on the new railway next spring.
Farmers in the valley say the dry summer has cut their harvest by half.
A small museum near the harbour has reopened after two years of repairs.
The city council voted to plant a thousand trees along the main avenue.
Scientists have found that the old bridge moves a little in strong wind.
Our team tested twelve coffee machines to find the one worth buying.
The library now lends tools, board games and musical instruments as well as books.
Heavy snow closed the mountain pass for the third time this winter.
Local volunteers cleaned the beach and collected four tons of plastic.
The orchestra played a programme of forgotten works by women composers.
Prices of second hand bicycles have doubled since the new cycle lanes opened.
A retired teacher has written a history of every street in the old town.
The airport expects more passengers this year than ever before.
Students built a solar car that drove across the desert without stopping.
The bakery on the corner has sold bread from the same oven for ninety years.
Engineers are still looking for the cause of the power cut last Tuesday.`, "\n")

func testPages(n int) []jobstest.Page {
	var pages []jobstest.Page
	for i := 0; i < n; i++ {
		var body strings.Builder
		for k := 0; k < 4; k++ {
			body.WriteString("<p>" + sentences[(i*5+k*k*3+i/16)%len(sentences)] + fmt.Sprintf(" Story %d, part %d.</p>", i, k))
		}
		p := jobstest.Page{
			URL:  fmt.Sprintf("http://h%d.example.com/%d.html", i%3, i),
			HTML: fmt.Sprintf("<html><head><title>Page %d</title></head><body>%s</body></html>", i, body.String()),
		}
		for _, j := range []int{(i * 7) % n, (i + 1) % n, i / 2} {
			p.Links = append(p.Links, fmt.Sprintf("http://h%d.example.com/%d.html", j%3, j))
		}
		if i%10 == 0 { // an exact copy
			pages = append(pages, jobstest.Page{URL: p.URL + "?utm_source=x", HTML: p.HTML})
		}
		pages = append(pages, p)
	}
	return pages
}

func makeStore(t *testing.T, pages []jobstest.Page) string {
	dir := filepath.Join(t.TempDir(), "db")
	w := jobstest.Open(t, dir, 0)
	jobstest.Store(t, w, pages)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func dump(t *testing.T, dir string) string {
	w := jobstest.Open(t, dir, 0)
	defer w.Close()
	return jobstest.Dump(t, w)
}

func TestHelpAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Usage:\n  index [flags] [JOB ...]") || !strings.Contains(out.String(), "-shard") {
		t.Errorf("index --help = %d, %q; want 0 and the usage with its flags", code, out.String())
	}
	for _, args := range [][]string{{"nosuchjob"}, {"--shard", "3/3"}, {"--shard", "x"}} {
		errb.Reset()
		if code := run(context.Background(), args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "see index --help") {
			t.Errorf("index %q = %d, stderr %q; want 2 and a pointer to --help", args, code, errb.String())
		}
	}
}

var summaryRow = regexp.MustCompile(`(?m)^(text|rank|dups)\s+(\d+)/(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)`)

func TestIndexBinary(t *testing.T) {
	dir := makeStore(t, testPages(40))
	out, err := exec.Command(binary(t), "--db", dir, "--split-rows", "5", "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	rows := summaryRow.FindAllStringSubmatch(string(out), -1)
	if len(rows) != 3 {
		t.Fatalf("summary has %d job rows, want 3 (text, rank, dups):\n%s", len(rows), out)
	}
	for _, r := range rows {
		if written, _ := strconv.Atoi(r[5]); written == 0 {
			t.Errorf("job %s wrote no row:\n%s", r[1], out)
		}
	}
	w := jobstest.Open(t, dir, 0)
	ranks := jobstest.Column(t, w, "rank:page")
	langs := jobstest.Column(t, w, "text:lang")
	of := jobstest.Column(t, w, "dup:of")
	w.Close()
	if len(ranks) != 44 || len(langs) != 44 {
		t.Errorf("rank:page in %d rows, text:lang in %d; want 44 each (the fetched pages)", len(ranks), len(langs))
	}
	if got := langs["com.example.h1/1.html"]; got != "en" {
		t.Errorf("text:lang of com.example.h1/1.html = %q, want en", got)
	}
	if got := of["com.example.h0/0.html?utm_source=x"]; got != "com.example.h0/0.html" {
		t.Errorf("dup:of of the tracking copy = %q, want com.example.h0/0.html", got)
	}

	before := dump(t, dir)
	out, err = exec.Command(binary(t), "--db", dir, "--split-rows", "5", "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("index again: %v\n%s", err, out)
	}
	for _, r := range summaryRow.FindAllStringSubmatch(string(out), -1) {
		if r[5] != "0" {
			t.Errorf("a second run of %s wrote %s rows, want 0:\n%s", r[1], r[5], out)
		}
	}
	if dump(t, dir) != before {
		t.Errorf("a second run changed the derived cells")
	}
}

// TestKillResume kills index with SIGKILL in the middle of each job, runs
// it again, and compares the derived cells with an uninterrupted run's,
// byte for byte.
func TestKillResume(t *testing.T) {
	pages := testPages(150)
	whole := makeStore(t, pages)
	if out, err := exec.Command(binary(t), "--db", whole, "--split-rows", "2", "--quiet", "--workers", "1").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	want := dump(t, whole)

	dir := makeStore(t, pages)
	for _, job := range []string{"text", "rank", "dups"} {
		cmd := exec.Command(binary(t), "--db", dir, "--split-rows", "2", "--progress-every", "0", "--workers", "1", job)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment: after a random share of the splits.
		share := 0.05 + 0.85*rand.Float64()
		t.Logf("%s: SIGKILL after %.0f%% of the splits", job, share*100)
		sc := bufio.NewScanner(stderr)
		killed := false
		re := regexp.MustCompile(`splits (\d+)/(\d+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.Atoi(m[1])
				total, _ := strconv.Atoi(m[2])
				if n > 0 && float64(n) >= share*float64(total) {
					cmd.Process.Signal(syscall.SIGKILL)
					killed = true
					break
				}
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		err = cmd.Wait()
		if !killed || err == nil {
			t.Fatalf("%s: index was not killed mid-run (%v)", job, err)
		}
		out, err := exec.Command(binary(t), "--db", dir, "--split-rows", "2", "--quiet", job).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: rerun: %v\n%s", job, err, out)
		}
		if !strings.Contains(string(out), "resumed") {
			t.Errorf("%s: the rerun did not resume the killed run:\n%s", job, out)
		}
	}
	if got := dump(t, dir); got != want {
		t.Errorf("after SIGKILLs and reruns the derived cells differ from an uninterrupted run's (%d bytes vs %d)", len(got), len(want))
	}
}
