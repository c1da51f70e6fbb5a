package webtable

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestWriteDerivedOnlyDerivedFamilies(t *testing.T) {
	w, _ := openTemp(t)
	defer w.Close()
	ctx := context.Background()
	if err := w.EnsureDerived(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", time.Unix(1000, 0), "<p>x</p>")); err != nil {
		t.Fatal(err)
	}
	for _, fam := range []string{FamilyContents, FamilyAnchor, FamilyMIME, FamilyFetch, "nosuch"} {
		err := w.WriteDerived(ctx, []DerivedWrite{{Key: "com.cnn.www/", Family: fam, Cells: []DerivedCell{{Qualifier: "html", Value: []byte("x")}}}})
		if !errors.Is(err, ErrNotDerived) {
			t.Errorf("WriteDerived to family %s = %v, want ErrNotDerived", fam, err)
		}
	}
	if err := w.WriteDerived(ctx, []DerivedWrite{{Key: JobPlanKey("rank"), Family: FamilyRank}}); err == nil {
		t.Errorf("WriteDerived to a reserved row succeeded, want an error")
	}
	err := w.WriteDerived(ctx, []DerivedWrite{{Key: "com.cnn.www/", Family: FamilyRank, Cells: []DerivedCell{{Qualifier: "page", Timestamp: 5000, Value: []byte("0.5")}}}})
	if err != nil {
		t.Fatal(err)
	}
	row, err := w.Get(ctx, "com.cnn.www/", Query{Column: "rank:page"})
	if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != "0.5" {
		t.Errorf("rank:page reads %v, %v; want 0.5", row.Cells, err)
	}
	// A scan of pages never passes the progress rows.
	if err := w.MarkSplitDone(ctx, JobRef{"rank", FamilyRank}, "1-a", 0, "..", 1000); err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := w.ScanSelect(ctx, "", "", Select{Families: DerivedFamilies}, func(r Row) bool { keys = append(keys, r.Key); return true }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"com.cnn.www/"}) {
		t.Errorf("ScanSelect of the derived families passed %q, want only the page", keys)
	}
}

func TestSwapJobPlanOneWinner(t *testing.T) {
	w, _ := openTemp(t)
	defer w.Close()
	ctx := context.Background()
	if err := w.EnsureDerived(ctx); err != nil {
		t.Fatal(err)
	}
	j := JobRef{"text", FamilyText}
	if _, _, ok, err := w.JobPlan(ctx, j); ok || err != nil {
		t.Fatalf("JobPlan of a job never run = %v, %v; want none", ok, err)
	}
	won, err := w.SwapJobPlan(ctx, j, "", "1-a", []byte("plan a"), 1000)
	if err != nil || !won {
		t.Fatalf("first SwapJobPlan = %v, %v; want it to win", won, err)
	}
	// A second process that also saw no plan loses.
	if won, err := w.SwapJobPlan(ctx, j, "", "1-b", []byte("plan b"), 1000); err != nil || won {
		t.Errorf("a second swap from no plan = %v, %v; want it to lose", won, err)
	}
	// Swapping from a stale run loses too; from the current one wins.
	if won, _ := w.SwapJobPlan(ctx, j, "0-z", "2-c", []byte("plan c"), 2000); won {
		t.Errorf("a swap from a run that is not the current one won")
	}
	if won, _ := w.SwapJobPlan(ctx, j, "1-a", "2-d", []byte("plan d"), 2000); !won {
		t.Errorf("a swap from the current run lost")
	}
	run, plan, ok, err := w.JobPlan(ctx, j)
	if err != nil || !ok || run != "2-d" || string(plan) != "plan d" {
		t.Errorf("JobPlan = %q, %q, %v, %v; want 2-d, plan d", run, plan, ok, err)
	}
	for i := range 3 {
		if err := w.MarkSplitDone(ctx, j, "2-d", i*2, "..", 3000); err != nil {
			t.Fatal(err)
		}
	}
	done, err := w.SplitsDone(ctx, j, "2-d")
	if err != nil || !slices.Equal(done, []int{0, 2, 4}) {
		t.Errorf("SplitsDone = %v, %v; want [0 2 4]", done, err)
	}
	if err := w.ClearJobRun(ctx, j, "2-d"); err != nil {
		t.Fatal(err)
	}
	if done, _ := w.SplitsDone(ctx, j, "2-d"); len(done) != 0 {
		t.Errorf("after ClearJobRun, SplitsDone = %v, want none", done)
	}
}
