package exec

import "errors"

// ErrCanceled is the error of a Step stopped because its expr.Ctx's
// Interrupt channel was closed. The Step has been rolled back, as after
// any other error, so the dataflow's state is as before the Step; the
// caller (sql) turns it into 57014 with the reason of the cancellation.
var ErrCanceled = errors.New("exec: step canceled")

// pollEvery is how many units of work (rows consumed or produced) an
// operator does between two looks at the Interrupt channel. A look is a
// non-blocking receive (a few ns); at 1024 rows per look its cost vanishes
// next to the rows' own, while a runaway join producing tens of millions
// of rows a second still notices a cancel within microseconds. It is a
// power of two so the test is a mask.
const pollEvery = 1024

// poll counts one unit of work and, every pollEvery units, reports
// ErrCanceled if the Step's statement was cancelled. It is small enough
// to inline into the operators' row loops.
func (s *stepCtx) poll() error {
	s.work++
	if s.work&(pollEvery-1) != 0 {
		return nil
	}
	return s.interrupted()
}

// interrupted reports ErrCanceled if the Step's Interrupt channel is
// closed (Steps without one, view maintenance, never are), and otherwise
// reports the Step's growth to its memory account (memory.go), whose
// refusal it returns.
func (s *stepCtx) interrupted() error {
	if s.ctx.Interrupt != nil {
		select {
		case <-s.ctx.Interrupt:
			return ErrCanceled
		default:
		}
	}
	if s.mem != nil {
		return s.account()
	}
	return nil
}
