package nexmark

import (
	"slices"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// sortedKeys returns the keys of opts in order, so that the first error
// reported for several bad options does not depend on map iteration.
func sortedKeys(opts map[string]string) []string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errValue is the 22023 error for an invalid option value.
func errValue(key, val, want string) error {
	return repr.Errorf(repr.CodeInvalidParameter, "invalid value for option %q: %q", key, val).
		WithDetail("Expected %s.", want)
}

// parseTableType reads person, auction or bid.
func parseTableType(key, val string) (TableType, error) {
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "person":
		return Person, nil
	case "auction":
		return Auction, nil
	case "bid":
		return Bid, nil
	}
	return 0, errValue(key, val, "person, auction or bid")
}

// parseInt reads a decimal integer in [lo, hi].
func parseInt(key, val string, lo, hi int64) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, errValue(key, val, "an integer from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
	}
	return i, nil
}

// parseUint reads an unsigned 64-bit decimal integer.
func parseUint(key, val string) (uint64, error) {
	u, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
	if err != nil {
		return 0, errValue(key, val, "an unsigned 64-bit integer")
	}
	return u, nil
}

// parseBool reads a boolean in PostgreSQL's spellings (true/false, on/off,
// yes/no, 1/0, t/f).
func parseBool(key, val string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "true", "t", "on", "yes", "y", "1":
		return true, nil
	case "false", "f", "off", "no", "n", "0":
		return false, nil
	}
	return false, errValue(key, val, "a boolean")
}
