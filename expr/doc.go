// Package scalar is Eddy's scalar expression language: column references,
// literals, function and operator calls, CASE, casts and boolean
// connectives, with PostgreSQL's NULL and three-valued-logic semantics. It
// holds the registry of built-in functions and operators (signatures,
// overload resolution, implementations) and evaluates expressions over rows.
//
// The planner builds these expressions (after resolving overloads and
// inserting implicit casts through this package) and the optimizer's IR and
// exec's dataflow carry them unchanged, so one definition of every function
// serves typing, printing and evaluation.
package expr
