package webtable

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/webtable/webtable/bigtable"
)

// Job progress. A job run (package jobs) cuts the page rows into splits,
// records the cut as its plan and each finished split beside it, under
// JobPrefix, in the job's own family:
//
//	~job/<job>/plan                   run: the run's id; plan: the runner's
//	                                  encoding of the splits
//	~job/<job>/done/<run>/<split>     done: the split's bounds (6-digit split)
//
// Job names and run ids are letters, digits and '-' only, so these keys
// need no escaping and sort as their parts do.

// The qualifiers of the progress rows.
const (
	colJobRun  = "run"
	colJobPlan = "plan"
	colJobDone = "done"
)

var jobWord = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// JobRef names a job and the derived family it keeps its progress in.
type JobRef struct {
	Name   string
	Family string
}

func (j JobRef) check() error {
	if !jobWord.MatchString(j.Name) {
		return fmt.Errorf("webtable: job name %q is not 1 to 64 of [a-z0-9-]", j.Name)
	}
	if !IsDerived(j.Family) {
		return fmt.Errorf("%w: job %s keeps its progress in %q", ErrNotDerived, j.Name, j.Family)
	}
	return nil
}

// JobPlanKey is the row key of job's plan.
func JobPlanKey(job string) string { return JobPrefix + job + "/plan" }

func jobDonePrefix(job, run string) string { return JobPrefix + job + "/done/" + run + "/" }

// JobPlan reads the plan of job's current run: its id and the plan bytes.
// ok is false when the job never ran.
func (w *WebTable) JobPlan(ctx context.Context, j JobRef) (run string, plan []byte, ok bool, err error) {
	if err := j.check(); err != nil {
		return "", nil, false, err
	}
	r, err := w.tbl.ReadRow(ctx, JobPlanKey(j.Name), bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(regexp.QuoteMeta(j.Family)), bigtable.LatestNFilter(1))))
	if err != nil {
		return "", nil, false, fmt.Errorf("webtable: reading the plan of job %s: %w", j.Name, err)
	}
	for _, it := range r[j.Family] {
		switch qualifier(it.Column) {
		case colJobRun:
			run = string(it.Value)
		case colJobPlan:
			plan = it.Value
		}
	}
	if run == "" {
		return "", nil, false, nil
	}
	return run, plan, true, nil
}

// SwapJobPlan records a new run of job, with its plan, in place of run old
// ("" when the job has none), atomically: when another process replaced old
// first, nothing is written and swapped is false (the caller reads the plan
// that won). The new run's id must differ from old.
func (w *WebTable) SwapJobPlan(ctx context.Context, j JobRef, old, run string, plan []byte, t bigtable.Timestamp) (swapped bool, err error) {
	if err := j.check(); err != nil {
		return false, err
	}
	if !jobWord.MatchString(run) || run == old {
		return false, fmt.Errorf("webtable: run id %q of job %s is not a new word of [a-z0-9-]", run, j.Name)
	}
	set := bigtable.NewMutation()
	set.DeleteCellsInFamily(j.Family)
	set.Set(j.Family, colJobRun, t, []byte(run))
	set.Set(j.Family, colJobPlan, t, plan)
	runCol := column(j.Family, colJobRun)
	var m *bigtable.Mutation
	if old == "" {
		m = bigtable.NewCondMutation(runCol, nil, set)
	} else {
		m = bigtable.NewCondMutation(bigtable.ChainFilters(runCol, bigtable.ValueFilter(regexp.QuoteMeta(old))), set, nil)
	}
	var matched bool
	if err := w.tbl.Apply(ctx, JobPlanKey(j.Name), m, bigtable.GetCondMutationResult(&matched)); err != nil {
		return false, fmt.Errorf("webtable: recording a run of job %s: %w", j.Name, err)
	}
	return matched == (old != ""), nil
}

// MarkSplitDone records that split of job's run is finished; bounds is
// kept for people ("start..end").
func (w *WebTable) MarkSplitDone(ctx context.Context, j JobRef, run string, split int, bounds string, t bigtable.Timestamp) error {
	if err := j.check(); err != nil {
		return err
	}
	m := bigtable.NewMutation()
	m.Set(j.Family, colJobDone, t, []byte(bounds))
	key := jobDonePrefix(j.Name, run) + fmt.Sprintf("%06d", split)
	if err := w.tbl.Apply(ctx, key, m); err != nil {
		return fmt.Errorf("webtable: recording split %d of job %s done: %w", split, j.Name, err)
	}
	return nil
}

// SplitsDone lists the finished splits of job's run, ascending.
func (w *WebTable) SplitsDone(ctx context.Context, j JobRef, run string) ([]int, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	prefix := jobDonePrefix(j.Name, run)
	var out []int
	var bad error
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(prefix), func(r bigtable.Row) bool {
		n, err := strconv.Atoi(strings.TrimPrefix(r.Key(), prefix))
		if err != nil {
			bad = fmt.Errorf("webtable: job progress row %q is not a split number", r.Key())
			return false
		}
		out = append(out, n)
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(column(j.Family, colJobDone), bigtable.StripValueFilter())))
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("webtable: reading the progress of job %s: %w", j.Name, err)
	}
	return out, nil
}

// ClearJobRun deletes the progress rows of job's run (an old run, once a
// new one is recorded).
func (w *WebTable) ClearJobRun(ctx context.Context, j JobRef, run string) error {
	if err := j.check(); err != nil {
		return err
	}
	var keys []string
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(jobDonePrefix(j.Name, run)), func(r bigtable.Row) bool {
		keys = append(keys, r.Key())
		return true
	}, bigtable.RowFilter(bigtable.StripValueFilter()))
	if err != nil {
		return fmt.Errorf("webtable: listing the progress of job %s: %w", j.Name, err)
	}
	if len(keys) == 0 {
		return nil
	}
	muts := make([]*bigtable.Mutation, len(keys))
	for i := range muts {
		muts[i] = bigtable.NewMutation()
		muts[i].DeleteRow()
	}
	errs, err := w.tbl.ApplyBulk(ctx, keys, muts)
	if err == nil {
		for _, e := range errs {
			if e != nil {
				err = e
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("webtable: clearing run %s of job %s: %w", run, j.Name, err)
	}
	return nil
}
