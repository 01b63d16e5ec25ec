package sql

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// PostgreSQL's planner method and cost settings steer the choice among
// plans that all give the same answer; Eddy's planner has no such choice
// to steer, so they are accepted, kept and shown, and change nothing
// (scripts and tools set them: enable_hashagg, jit_above_cost, ...).

// plannerBools are the boolean planner settings with PostgreSQL 15's
// defaults.
var plannerBools = map[string]string{
	"enable_async_append": "on", "enable_bitmapscan": "on", "enable_gathermerge": "on", "enable_hashagg": "on",
	"enable_hashjoin": "on", "enable_incremental_sort": "on", "enable_indexscan": "on", "enable_indexonlyscan": "on",
	"enable_material": "on", "enable_memoize": "on", "enable_mergejoin": "on", "enable_nestloop": "on",
	"enable_parallel_append": "on", "enable_parallel_hash": "on", "enable_partition_pruning": "on",
	"enable_partitionwise_join": "off", "enable_partitionwise_aggregate": "off", "enable_seqscan": "on",
	"enable_sort": "on", "enable_tidscan": "on", "jit": "on", "geqo": "on", "parallel_leader_participation": "on",
}

// plannerNumbers are the numeric planner settings with PostgreSQL 15's
// defaults (sizes with their unit).
var plannerNumbers = map[string]string{
	"jit_above_cost": "100000", "jit_inline_above_cost": "500000", "jit_optimize_above_cost": "500000",
	"parallel_setup_cost": "1000", "parallel_tuple_cost": "0.1", "min_parallel_table_scan_size": "8MB",
	"min_parallel_index_scan_size": "512kB", "max_parallel_workers_per_gather": "2", "seq_page_cost": "1",
	"random_page_cost": "4", "cpu_tuple_cost": "0.01", "cpu_index_tuple_cost": "0.005",
	"cpu_operator_cost": "0.0025", "effective_cache_size": "4GB", "geqo_threshold": "12",
	"from_collapse_limit": "8", "join_collapse_limit": "8",
}

// addPlannerDefaults adds the planner settings to a settings map.
func addPlannerDefaults(vals map[string]string) {
	for k, v := range plannerBools {
		vals[k] = v
	}
	for k, v := range plannerNumbers {
		vals[k] = v
	}
}

// checkPlannerSetting validates a planner setting's new value (22023 as
// in PostgreSQL) and returns its shown form; ok is false when name is not
// one.
func checkPlannerSetting(name, value string) (string, bool, error) {
	if _, isBool := plannerBools[name]; isBool {
		b, valid := parseBoolSetting(value)
		if !valid {
			return "", true, repr.Errorf(repr.CodeInvalidParameter, "parameter \"%s\" requires a Boolean value", name)
		}
		return onOff(b), true, nil
	}
	if _, isNum := plannerNumbers[name]; !isNum {
		return "", false, nil
	}
	v, err := checkNumberSetting(name, value)
	return v, true, err
}

// checkNumberSetting validates a numeric setting's value (a number, with
// a unit for sizes and times).
func checkNumberSetting(name, value string) (string, error) {
	num := strings.TrimRight(strings.TrimSpace(value), "kMGTBbytemins")
	if _, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err != nil {
		return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value)
	}
	return value, nil
}
