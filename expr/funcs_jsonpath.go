package expr

import (
	// The jsonpath package installs the jsonpath type's input function.
	_ "github.com/eddydb/eddy/expr/jsonpath"
)
