package search

import (
	"context"
	"fmt"

	"github.com/webtable/webtable/webtable"
)

// ForgetRun forgets the splits done of job's recorded run, so that they
// run again: for an index created anew (it holds nothing those splits
// wrote). The run itself stays, to be resumed.
func ForgetRun(ctx context.Context, w *webtable.WebTable, job *Job) error {
	ref := webtable.JobRef{Name: job.Name(), Family: job.Family()}
	run, _, ok, err := w.JobPlan(ctx, ref)
	if err != nil || !ok {
		return err
	}
	if err := w.ClearJobRun(ctx, ref, run); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}
