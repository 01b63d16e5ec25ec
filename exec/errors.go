package exec

import "errors"

// errCorrupt reports a state key or value that Restore cannot interpret.
var errCorrupt = errors.New("corrupt dataflow state")
