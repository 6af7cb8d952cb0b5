package evaluators

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentv/action/internal/proc"
)

// errTimedOut is matched by the error of a judge call that ran out of time.
var errTimedOut = errors.New("timed out")

// isTimeout reports whether err is a judge call or script that ran out of time: the only
// failure worth another attempt (a crash or a refusal would fail again the same way).
func isTimeout(err error) bool {
	return errors.Is(err, errTimedOut) || errors.Is(err, proc.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// withRetries runs call again while it times out and MaxRetries lasts, each attempt with the
// whole timeout, as the runner does for targets: judge calls and scripts alike (a script may
// call a slow API). The retries are counted on r for the evaluator's result.
func (r *caseRun) withRetries(ctx context.Context, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil || !isTimeout(err) || ctx.Err() != nil {
			return err
		}
		if attempt >= r.opts.MaxRetries {
			if attempt > 0 {
				return fmt.Errorf("%w (every one of %d attempts timed out)", err, attempt+1)
			}
			return err
		}
		r.retries++
	}
}
