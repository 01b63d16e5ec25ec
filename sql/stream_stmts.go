package sql

import (
	"context"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// dispatchExt executes an extension statement.
func (p *Portal) dispatchExt(ctx context.Context, x parse.Ext) error {
	switch x := x.(type) {
	case *parse.CreateSource:
		return p.execCreateSource(x)
	case *parse.CreateSink:
		return p.execCreateSink(x)
	case *parse.DropObject:
		return p.execDropExt(x)
	case *parse.EmitOnWindowClose:
		st := p.st.stmt.AST.GetCreateTableAsStmt()
		if st == nil || st.Objtype != pg.ObjectType_OBJECT_MATVIEW {
			return repr.Errorf(repr.CodeSyntax, "EMIT ON WINDOW CLOSE applies only to CREATE MATERIALIZED VIEW")
		}
		return p.createTableAs(st, true)
	case *parse.Subscribe:
		if x.CursorName != "" {
			return nil // declared at Bind
		}
		return repr.Errorf(repr.CodeProtocolViolation, "SUBSCRIBE must be bound before it runs")
	}
	return repr.Unsupported("%s", x.Construct())
}

// execCreateSource executes CREATE SOURCE and CREATE TABLE ... WITH
// (connector = ...).
func (p *Portal) execCreateSource(cs *parse.CreateSource) error {
	if err := p.st.s.MayCreateConnector(); err != nil {
		return err
	}
	obj, err := sourceObject(cs)
	if err != nil {
		return err
	}
	if err := p.st.s.MayCreateConnector(); err != nil {
		return err
	}
	obj.Owner = p.st.s.newOwner()
	p.tag = "CREATE SOURCE"
	if cs.IsTable {
		p.tag = "CREATE TABLE"
	}
	return p.st.s.e.createSource(obj, cs.IfNotExists)
}

// execDropExt executes DROP SOURCE and DROP SINK.
func (p *Portal) execDropExt(d *parse.DropObject) error {
	p.tag = "DROP " + d.Kind
	if d.Kind == "SINK" {
		missing, err := p.st.s.e.dropSinks(d)
		for _, name := range missing {
			p.st.s.addNotice(repr.Errorf("00000", "sink \"%s\" does not exist, skipping", name))
		}
		return err
	}
	for _, n := range d.Names {
		err := p.st.s.e.drop(p.st.s, planner.RelSource, n.Schemaname, n.Relname, d.IfExists, d.Cascade)
		if p.st.s.noticeSkipped(err) != nil {
			return err
		}
	}
	return nil
}

// sourceObject builds the catalog entry of a source from its definition:
// the columns go through the same path as CREATE TABLE's.
func sourceObject(cs *parse.CreateSource) (*Object, error) {
	elts := make([]*pg.Node, 0, len(cs.Columns)+len(cs.Constraints))
	for _, c := range cs.Columns {
		elts = append(elts, &pg.Node{Node: &pg.Node_ColumnDef{ColumnDef: c}})
	}
	for _, c := range cs.Constraints {
		elts = append(elts, &pg.Node{Node: &pg.Node_Constraint{Constraint: c}})
	}
	obj, err := tableObject(&pg.CreateStmt{Relation: &pg.RangeVar{Schemaname: cs.Schema, Relname: cs.Name}, TableElts: elts}, typeFromName)
	if err != nil {
		return nil, err
	}
	if !cs.IsTable {
		obj.Kind = planner.RelSource
		if obj.PrimaryKey != nil {
			return nil, repr.Unsupported("PRIMARY KEY on a source (use CREATE TABLE ... WITH (connector = ...) for upserts)")
		}
	}
	def := &SourceDef{Options: map[string]string{}, Format: cs.Format, Encode: cs.Encode, IsTable: cs.IsTable,
		EncodeOptions: optionMap(cs.EncodeOptions), ChecksDeletions: true}
	for _, o := range cs.Options {
		if o.Key == "connector" {
			def.Connector = strings.ToLower(o.Value)
			continue
		}
		def.Options[o.Key] = o.Value
	}
	if w := cs.Watermark; w != nil {
		i := columnIndex(obj.Columns, w.Column)
		if i < 0 {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" named in WATERMARK FOR does not exist", w.Column)
		}
		if f := obj.Columns[i].Type.Family; f != repr.FamTimestamp && f != repr.FamTimestampTZ {
			return nil, repr.Errorf(repr.CodeDatatypeMismatch, "WATERMARK FOR column \"%s\" must be a timestamp, not %s", w.Column, obj.Columns[i].Type.Name())
		}
		text, err := parse.DeparseExpr(w.Expr)
		if err != nil {
			return nil, err
		}
		def.Watermark = &WatermarkDef{Column: i, Expr: text}
	}
	obj.Source = def
	return obj, nil
}

// subscribeOptions are SUBSCRIBE's WITH options.
type subscribeOptions struct{ snapshot, progress bool }

func parseSubscribeOptions(opts []parse.Option) (subscribeOptions, error) {
	o := subscribeOptions{snapshot: true}
	for _, x := range opts {
		v := x.Bare || x.Value == "" || strings.EqualFold(x.Value, "true") || strings.EqualFold(x.Value, "on") || x.Value == "1"
		if !x.Bare && !v && !strings.EqualFold(x.Value, "false") && !strings.EqualFold(x.Value, "off") && x.Value != "0" {
			return o, repr.Errorf(repr.CodeInvalidParameter, "invalid value for SUBSCRIBE option %s: %q", x.Key, x.Value)
		}
		switch x.Key {
		case "snapshot":
			o.snapshot = v
		case "progress":
			o.progress = v
		default:
			return o, repr.Unsupported("SUBSCRIBE option %s", x.Key)
		}
	}
	return o, nil
}

// openSubscription starts a subscription for a SUBSCRIBE statement and
// returns it with its result columns.
func (s *Session) openSubscription(x *parse.Subscribe) (*Subscription, []resultCol, subscribeOptions, error) {
	opts, err := parseSubscribeOptions(x.Options)
	if err != nil {
		return nil, nil, opts, err
	}
	var sub *Subscription
	var cols []ColumnDef
	var sql string
	buffer := s.subscribeBuffer()
	if x.Relation != nil {
		sub, cols, err = s.e.subscribeRelation(x.Relation, opts.progress, buffer, s.settings.timeZone)
	} else {
		if sql, err = parse.Deparse(x.Query); err == nil {
			sub, cols, err = s.e.subscribeQuery(sql, opts.progress, buffer, s.settings.timeZone)
		}
	}
	if err != nil {
		return nil, nil, opts, err
	}
	if sn := snapshotOf(s.ws); sn != nil {
		if err := s.startFromSnapshot(sub, x.Relation, sql); err != nil {
			sub.Close()
			return nil, nil, opts, err
		}
	}
	info := subInfo{pid: s.backend.PID, user: s.settings.user, started: time.Now()}
	if x.Relation != nil {
		info.target = x.Relation.Relname
		if x.Relation.Schemaname != "" {
			info.target = qualified(x.Relation.Schemaname, x.Relation.Relname)
		}
	} else {
		info.target, info.query = sql, true
	}
	var snap int64
	if opts.snapshot {
		snap = int64(len(sub.Snapshot))
	}
	sub.describe(info, snap)
	return sub, subscribeColumns(cols, opts), opts, nil
}

// subscribeRelation subscribes to a table or materialized view by name; a
// plain view or a source is subscribed as the query SELECT * FROM it.
func (e *Engine) subscribeRelation(rv *pg.RangeVar, progress bool, buffer int, tz string) (*Subscription, []ColumnDef, error) {
	var obj *Object
	e.readLocked(func() {
		obj = e.cat.lookup(rv.Schemaname, rv.Relname)
	})
	if obj == nil {
		return nil, nil, repr.ErrUndefinedTable.New(rv.Relname)
	}
	if obj.Kind == planner.RelView || obj.Kind == planner.RelSource {
		sub, cols, err := e.subscribeQuery("SELECT * FROM "+quoteIdent(obj.Schema)+"."+quoteIdent(obj.Name), progress, buffer, tz)
		if err == nil {
			e.activateSources(obj.Deps)
			e.activateSources([]uint64{obj.ID})
		}
		return sub, cols, err
	}
	if err := e.checkMaintainable([]uint64{obj.ID}); err != nil {
		return nil, nil, err
	}
	sub, err := e.subscribeCollection(obj.ID, progress, buffer)
	return sub, obj.Columns, err
}

// describeExt returns the result columns of an extension statement without
// running it (only SUBSCRIBE returns rows).
func (s *Session) describeExt(x parse.Ext) ([]resultCol, error) {
	sub, ok := x.(*parse.Subscribe)
	if !ok || sub.CursorName != "" {
		return nil, nil
	}
	opts, err := parseSubscribeOptions(sub.Options)
	if err != nil {
		return nil, err
	}
	var cols []ColumnDef
	if sub.Relation != nil {
		var obj *Object
		s.e.readLocked(func() {
			obj = s.e.cat.lookup(sub.Relation.Schemaname, sub.Relation.Relname)
		})
		if obj == nil {
			return nil, repr.ErrUndefinedTable.New(sub.Relation.Relname)
		}
		cols = obj.Columns
	} else {
		sql, err := parse.Deparse(sub.Query)
		if err != nil {
			return nil, err
		}
		s.e.readLocked(func() {
			cols, _, err = s.e.describeQuery(sql, true, s.settings.timeZone)
		})
		if err != nil {
			return nil, err
		}
	}
	return subscribeColumns(cols, opts), nil
}

// subscribeColumns are SUBSCRIBE's result columns: eddy_timestamp,
// [eddy_progressed,] eddy_diff, then the relation's.
func subscribeColumns(cols []ColumnDef, opts subscribeOptions) []resultCol {
	out := []resultCol{{Name: "eddy_timestamp", Type: repr.Int8}}
	if opts.progress {
		out = append(out, resultCol{Name: "eddy_progressed", Type: repr.Bool})
	}
	out = append(out, resultCol{Name: "eddy_diff", Type: repr.Int8})
	for _, c := range cols {
		out = append(out, resultCol{Name: c.Name, Type: c.Type})
	}
	return out
}

// emitOnClose marks the view's top aggregate (under projections, maps and
// filters) to emit each window once, when the watermark closes it. exec
// then requires a GROUP BY column with a watermark.
func emitOnClose(rel ir.Rel) (ir.Rel, error) {
	switch r := rel.(type) {
	case *ir.Reduce:
		c := *r
		c.EmitOnClose = true
		return &c, nil
	case *ir.Project, *ir.Map, *ir.Filter:
		kids := r.Children()
		in, err := emitOnClose(kids[0])
		if err != nil {
			return nil, err
		}
		return r.WithChildren([]ir.Rel{in}), nil
	}
	return nil, repr.Unsupported("EMIT ON WINDOW CLOSE on a view whose result is not a GROUP BY over a window")
}
