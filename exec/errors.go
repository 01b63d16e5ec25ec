package exec

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// errCorrupt reports a state key or value that Restore cannot interpret.
var errCorrupt = errors.New("corrupt dataflow state")

// OperatorPanic is the error of a Step in which an operator or an
// expression panicked (a bug): the Step rolled back, and the caller, which
// owns the log, reports Value with the Stack it was raised on.
type OperatorPanic struct {
	Value any
	Stack []byte
}

// Error names the panic's value.
func (p *OperatorPanic) Error() string { return fmt.Sprintf("dataflow operator panicked: %v", p.Value) }

// operatorPanic returns the OperatorPanic of r, recovered in an operator
// (deferred recover in runStep and runIter, so the stack is the panic's).
func operatorPanic(r any) error { return &OperatorPanic{Value: r, Stack: debug.Stack()} }
