package sql

import (
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
)

// A prepared INSERT ... VALUES of literals, DEFAULTs and bare parameters
// is planned in full at its first execution with parameters, and its plan
// kept with the planner's template of its rows (planner.InsertTemplate):
// later executions under the same catalog version and time zone only
// rebuild the rows from the bound values, as PostgreSQL's generic plan
// binds parameters into an existing plan. Any DDL changes the catalog
// version and the next execution plans in full again.

// insertRebinds counts the executions served by rebindInsert (tests
// print whether an execution was).
var insertRebinds atomic.Int64

// insertShared counts the rebound executions whose rows are the bound
// values themselves (planner.InsertTemplate.Rows; tests print it).
var insertShared atomic.Int64

// insertPlan is a statement's kept INSERT plan and what it was planned
// under.
type insertPlan struct {
	d       *dmlPlan
	version uint64
	tz      string
}

// rebindInsert returns the statement's kept INSERT plan with its rows
// rebuilt for params, or nil when there is none for the current catalog
// and time zone or a value does not fit (the caller then plans in full,
// which reports the error exactly as without a kept plan).
func (st *Statement) rebindInsert(params []repr.Datum) *dmlPlan {
	k := st.insPlan
	if disableGenericPlans || k == nil || k.tz != st.s.settings.timeZone || k.version != st.s.e.catalogVersion() {
		return nil
	}
	rows, ok := k.d.ins.Template.Rows(params)
	if !ok {
		return nil
	}
	ins := *k.d.ins
	src := *ins.Source
	src.Rows = rows
	ins.Source = &src
	d := *k.d
	d.ins = &ins
	insertRebinds.Add(1)
	if len(rows) > 0 && len(rows[0]) > 0 && len(params) > 0 && &rows[0][0] == &params[0] {
		insertShared.Add(1)
	}
	return &d
}

// keepInsert keeps d, planned under catalog version, for rebindInsert if
// it is an INSERT with a template.
func (st *Statement) keepInsert(d *dmlPlan, version uint64) {
	st.insPlan = nil
	if d != nil && d.ins != nil && d.ins.Template != nil {
		st.insPlan = &insertPlan{d: d, version: version, tz: st.s.settings.timeZone}
	}
}
