package text

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"strings"

	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/webtable"
)

// The columns the job writes, per version.
const (
	ColTitle = "title"
	ColBody  = "body"
	ColLang  = "lang"
	ColSrc   = "src"
)

// Form is the form of the cells this job writes, the first word of
// text:src; cells of another form are rewritten.
const Form = "1"

// MaxText bounds the visible text kept per version, in bytes.
const MaxText = 64 << 10

// BatchRows is how many rows one bulk write carries.
const BatchRows = 256

// Job is the text job. A zero Job is ready to use.
type Job struct{}

// Name is "text".
func (Job) Name() string { return "text" }

// Family is webtable.FamilyText.
func (Job) Family() string { return webtable.FamilyText }

// Prepare does nothing: each row is its own input.
func (Job) Prepare(context.Context, *jobs.Env) error { return nil }

// Result is what the job derives from one HTML version.
type Result struct {
	Title, Body, Lang string
}

// Analyze derives title, text and language from a page body: the
// function the job calls on each version (and the baseline of its
// benchmark).
func Analyze(body []byte, contentType string) Result {
	text, _ := extract.Text(body, contentType, MaxText)
	return Result{Title: extract.Title(body, contentType), Body: text, Lang: Lang(text)}
}

func isHTML(mediaType string) bool {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(mediaType))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// RunSplit derives the text of every HTML version in s whose text is
// missing, of another form, or computed from other bytes.
func (Job) RunSplit(ctx context.Context, env *jobs.Env, s jobs.Split) error {
	var batch []webtable.DerivedWrite
	var rows, written, unchanged, other int64
	var werr error
	err := env.W.ScanSelect(ctx, s.Start, s.End, webtable.Select{
		AllVersions: []string{webtable.FamilyContents, webtable.FamilyText},
		Columns:     []string{"mime:type", "fetch:record"},
	}, func(r webtable.Row) bool {
		rows++
		dw, state := derive(env, r)
		switch state {
		case rowWritten:
			written++
			batch = append(batch, dw)
		case rowUnchanged:
			unchanged++
		case rowOther:
			other++
		}
		if len(batch) >= BatchRows {
			werr = env.W.WriteDerived(ctx, batch)
			batch = batch[:0]
		}
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = env.W.WriteDerived(ctx, batch)
	}
	env.Counts.Add(rows, written, unchanged, other)
	return err
}

type rowState int

const (
	rowOther rowState = iota
	rowUnchanged
	rowWritten
)

type version struct {
	ts   webtable.Timestamp
	html []byte
	sha  string
}

// derive works out the text cells of one row.
func derive(env *jobs.Env, r webtable.Row) (webtable.DerivedWrite, rowState) {
	var (
		versions []version
		mt       string
		have     = map[webtable.Timestamp]map[string][]byte{}
		shas     = map[webtable.Timestamp]string{}
		charset  string
	)
	for _, c := range r.Cells {
		switch c.Family {
		case webtable.FamilyContents:
			switch c.Qualifier {
			case "html":
				versions = append(versions, version{ts: c.Timestamp, html: c.Value})
			case "sha256":
				shas[c.Timestamp] = string(c.Value)
			}
		case webtable.FamilyText:
			if have[c.Timestamp] == nil {
				have[c.Timestamp] = map[string][]byte{}
			}
			have[c.Timestamp][c.Qualifier] = c.Value
		case webtable.FamilyMIME:
			mt = string(c.Value)
		}
	}
	if len(versions) == 0 || (mt != "" && !isHTML(mt)) {
		return webtable.DerivedWrite{}, rowOther
	}
	if f, err := webtable.FetchOf(r); err == nil {
		charset = f.Charset
	}
	ct := "text/html"
	if charset != "" {
		ct += "; charset=" + charset
	}
	// NB: the family is cleared only when it holds cells (a delete in a
	// bulk write costs badger a sort of the pending writes).
	dw := webtable.DerivedWrite{Key: r.Key, Family: webtable.FamilyText, DeleteFamily: len(have) > 0}
	changed := false
	good := 0
	var damaged []string
	for _, v := range versions {
		sum := sha256.Sum256(v.html)
		hexSum := hex.EncodeToString(sum[:])
		if want := shas[v.ts]; want != "" && want != hexSum {
			damaged = append(damaged, fmt.Sprintf("contents:html @%d has sha256 %.12s..., contents:sha256 says %.12s...", v.ts, hexSum, want))
			continue
		}
		good++
		src := Form + " " + hexSum
		old := have[v.ts]
		var res Result
		if !env.Full && old != nil && string(old[ColSrc]) == src && old[ColTitle] != nil && old[ColBody] != nil && old[ColLang] != nil {
			res = Result{Title: string(old[ColTitle]), Body: string(old[ColBody]), Lang: string(old[ColLang])}
		} else {
			res = Analyze(v.html, ct)
			if old == nil || string(old[ColSrc]) != src || string(old[ColTitle]) != res.Title ||
				string(old[ColBody]) != res.Body || string(old[ColLang]) != res.Lang || len(old) != 4 {
				changed = true
			}
		}
		dw.Cells = append(dw.Cells,
			webtable.DerivedCell{Qualifier: ColTitle, Timestamp: v.ts, Value: []byte(res.Title)},
			webtable.DerivedCell{Qualifier: ColBody, Timestamp: v.ts, Value: []byte(res.Body)},
			webtable.DerivedCell{Qualifier: ColLang, Timestamp: v.ts, Value: []byte(res.Lang)},
			webtable.DerivedCell{Qualifier: ColSrc, Timestamp: v.ts, Value: []byte(src)},
		)
	}
	changed = changed || len(have) != good
	if len(damaged) > 0 {
		env.Bad(r.Key, fmt.Errorf("damaged bytes: %s", strings.Join(damaged, "; ")))
	}
	if !changed {
		return webtable.DerivedWrite{}, rowUnchanged
	}
	return dw, rowWritten
}

var _ jobs.Job = Job{}
