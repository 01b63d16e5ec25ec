package rules

// Simplify normalizes the tree without moving predicates: it splits
// conjunctions, folds constants, merges adjacent operators of one kind and
// removes no-ops and relations that are provably empty.
var Simplify = Phase{Name: "simplify", Rules: simplifyRules}

// Pushdown moves predicates toward the leaves: through projections, maps,
// unions, negations, thresholds, group keys and TopK partitions, into join
// inputs and join conditions. It includes Simplify's rules so filters that
// meet on the way down merge and fold.
var Pushdown = Phase{Name: "pushdown", Rules: append(pushdownRules, simplifyRules...)}

// Prune removes map expressions nobody reads and projections a Reduce can
// read through.
var Prune = Phase{Name: "prune", Rules: append(pruneRules, simplifyRules...)}

// OrRestrict derives from each disjunction over several join inputs the
// restriction it implies for each input alone (DeriveOrRestrictions); it
// runs once, before Pushdown moves those restrictions into the inputs.
var OrRestrict = Phase{Name: "orrestrict", Pass: &DeriveOrRestrictions}

// JoinOrder orders every cluster of inner joins (ReorderJoins); it runs
// after Pushdown has moved the predicates into the clusters.
var JoinOrder = Phase{Name: "joinorder", Pass: &ReorderJoins}

// OrJoins splits inner joins on a disjunction of equi-joins into unions
// of hash joins (SplitOrJoin); it runs after JoinOrder, which orders the
// joins as written.
var OrJoins = Phase{Name: "orjoins", Rules: []Rule{SplitOrJoin}}

// Default is the pipeline optimizer.Optimize runs.
var Default = []Phase{Simplify, OrRestrict, Pushdown, JoinOrder, OrJoins, Prune, PruneColumns, Prune}

// Phases lists the named phases, for tests that select phases by name.
var Phases = []Phase{Simplify, OrRestrict, Pushdown, JoinOrder, OrJoins, Prune, PruneColumns}

var simplifyRules = []Rule{
	FoldValues,
	SplitFilterConjuncts,
	FoldFilter,
	RemoveTrueFilter,
	FalseFilterToEmpty,
	MergeFilters,
	FoldMap,
	RemoveEmptyMap,
	MergeMaps,
	RemoveIdentityProject,
	MergeProjects,
	SplitJoinOn,
	FoldJoinOn,
	FalseJoinOn,
	NormalizeJoinKind,
	RemoveDistinctOfDistinct,
	RemoveDistinctOfKey,
	RemoveJoinOfOwnGroups,
	PropagateEmpty,
	FoldFlatMap,
}

var pushdownRules = []Rule{
	SimplifyOuterJoin,
	SimplifyOuterJoinUnderJoin,
	PushFilterIntoJoin,
	PushJoinOnIntoInputs,
	PushFilterThroughProject,
	PushFilterThroughMap,
	PushFilterThroughUnion,
	PushFilterThroughNegate,
	PushFilterThroughThreshold,
	PushFilterThroughReduce,
	PushFilterThroughTopK,
	PushFilterThroughSessionWindow,
	PushFilterThroughWindow,
	PushFilterThroughFlatMap,
}

var pruneRules = []Rule{
	FuseProjectIntoMap,
	PruneMapBelowFilter,
	FuseProjectIntoReduce,
	PruneMapUnderReduce,
}

// All lists every rule, for tests that select rules by name.
var All = append(append(append(append([]Rule(nil), simplifyRules...), pushdownRules...), pruneRules...), PruneUnusedColumns, SplitOrJoin)
