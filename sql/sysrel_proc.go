package sql

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// ioProcs are the type input, output, receive and send functions of
// Eddy's types with their PostgreSQL OIDs (pg_type's typinput etc. are
// regproc references to pg_proc, which clients join on: pgjdbc tells
// arrays by typinput = 'array_in'::regproc, Npgsql by typreceive's
// proname).
var ioProcs = map[string]uint32{
	"boolin": 1242, "boolout": 1243, "boolrecv": 2436, "boolsend": 2437,
	"byteain": 1244, "byteaout": 31, "bytearecv": 2412, "byteasend": 2413,
	"charin": 1245, "charout": 33, "charrecv": 2434, "charsend": 2435,
	"namein": 34, "nameout": 35, "namerecv": 2422, "namesend": 2423,
	"int8in": 460, "int8out": 461, "int8recv": 2408, "int8send": 2409,
	"int2in": 38, "int2out": 39, "int2recv": 2404, "int2send": 2405,
	"int2vectorin": 40, "int2vectorout": 41, "int2vectorrecv": 2410, "int2vectorsend": 2411,
	"int4in": 42, "int4out": 43, "int4recv": 2406, "int4send": 2407,
	"regprocin": 44, "regprocout": 45, "regprocrecv": 2444, "regprocsend": 2445,
	"textin": 46, "textout": 47, "textrecv": 2414, "textsend": 2415,
	"oidin": 1798, "oidout": 1799, "oidrecv": 2418, "oidsend": 2419,
	"oidvectorin": 54, "oidvectorout": 55, "oidvectorrecv": 2420, "oidvectorsend": 2421,
	"json_in": 321, "json_out": 322, "json_recv": 323, "json_send": 324,
	"float4in": 200, "float4out": 201, "float4recv": 2424, "float4send": 2425,
	"float8in": 214, "float8out": 215, "float8recv": 2426, "float8send": 2427,
	"unknownin": 109, "unknownout": 110, "unknownrecv": 2416, "unknownsend": 2417,
	"array_in": 750, "array_out": 751, "array_recv": 2400, "array_send": 2401,
	"bpcharin": 1044, "bpcharout": 1045, "bpcharrecv": 2430, "bpcharsend": 2431,
	"varcharin": 1046, "varcharout": 1047, "varcharrecv": 2432, "varcharsend": 2433,
	"date_in": 1084, "date_out": 1085, "date_recv": 2468, "date_send": 2469,
	"time_in": 1143, "time_out": 1144, "time_recv": 2470, "time_send": 2471,
	"timestamp_in": 1312, "timestamp_out": 1313, "timestamp_recv": 2474, "timestamp_send": 2475,
	"timestamptz_in": 1150, "timestamptz_out": 1151, "timestamptz_recv": 2476, "timestamptz_send": 2477,
	"interval_in": 1160, "interval_out": 1161, "interval_recv": 2478, "interval_send": 2479,
	"numeric_in": 1701, "numeric_out": 1702, "numeric_recv": 2460, "numeric_send": 2461,
	"regprocedurein": 2212, "regprocedureout": 2213, "regprocedurerecv": 2446, "regproceduresend": 2447,
	"regclassin": 2218, "regclassout": 2219, "regclassrecv": 2452, "regclasssend": 2453,
	"regtypein": 2220, "regtypeout": 2221, "regtyperecv": 2454, "regtypesend": 2455,
	"jsonpath_in": 4001, "jsonpath_out": 4002, "jsonpath_recv": 4003, "jsonpath_send": 4004,
	"uuid_in": 2952, "uuid_out": 2953, "uuid_recv": 2961, "uuid_send": 2962,
	"jsonb_in": 3806, "jsonb_out": 3804, "jsonb_recv": 3805, "jsonb_send": 3803,
	"regnamespacein": 4084, "regnamespaceout": 4085, "regnamespacerecv": 4087, "regnamespacesend": 4088,
	"record_in": 2290, "record_out": 2291, "record_recv": 2402, "record_send": 2403,
	"regrolein": 4098, "regroleout": 4092, "regrolerecv": 4094, "regrolesend": 4095,
}

// ioProcNames are the I/O functions' names by type name where they are
// not typname + in/out/recv/send.
var ioProcNames = map[string]string{
	"json": "json_", "date": "date_", "time": "time_", "timestamp": "timestamp_", "timestamptz": "timestamptz_",
	"interval": "interval_", "numeric": "numeric_", "uuid": "uuid_", "jsonb": "jsonb_", "jsonpath": "jsonpath_",
}

// ioProcName returns the name of the I/O function kind ("in", "out",
// "recv", "send") of the type named typname.
func ioProcName(typname, kind string) string {
	if p, ok := ioProcNames[typname]; ok {
		return p + kind
	}
	return typname + kind
}

// procOIDByName returns the OID of a built-in function by name (0: none).
func procOIDByName(name string) uint32 { return ioProcs[name] }

// procInfo is one pg_proc row.
type procInfo struct {
	oid      uint32
	name     string
	kind     byte // f function, a aggregate
	args     []uint32
	ret      uint32
	strict   bool
	volatile bool
}

// argNames prints the argument types as regprocedure does.
func (p *procInfo) argNames() string { return typeListNames(p.args) }

// typeListNames is oidvectortypes: the names of the types oids, as
// format_type prints them, separated by ", ".
func typeListNames(oids []uint32) string {
	var out []string
	for _, a := range oids {
		if t, ok := repr.FromOID(a); ok {
			out = append(out, t.Name())
		} else if n, ok := pseudoTypeNames[a]; ok {
			out = append(out, n)
		} else {
			out = append(out, "???")
		}
	}
	return strings.Join(out, ", ")
}

// pseudoTypeNames name PostgreSQL 15's pseudo-types (as format_type
// prints them), which pg_proc's polymorphic arguments use and regtype
// input accepts.
var pseudoTypeNames = map[uint32]string{
	32: "pg_ddl_command", 269: "table_am_handler", 325: "index_am_handler", 2249: "record", 2275: "cstring",
	2276: "\"any\"", 2277: "anyarray", 2278: "void", 2279: "trigger", 2280: "language_handler", 2281: "internal",
	2283: "anyelement", 2776: "anynonarray", 3115: "fdw_handler", 3310: "tsm_handler", 3500: "anyenum",
	3831: "anyrange", 3838: "event_trigger", 4537: "anymultirange", 4538: "anycompatiblemultirange",
	5077: "anycompatible", 5078: "anycompatiblearray", 5079: "anycompatiblenonarray", 5080: "anycompatiblerange",
}

// pseudoTypeOID is the OID of the pseudo-type named name (possibly
// qualified with pg_catalog, "any" quoted or not); ok false for others.
func pseudoTypeOID(name string) (uint32, bool) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "pg_catalog.")
	for oid, n := range pseudoTypeNames {
		if n == name || strings.Trim(n, `"`) == name {
			return oid, true
		}
	}
	return 0, false
}

// firstProcOID is the first OID of the functions numbered here: above
// user relations' OIDs, below the derived OIDs (sysrel.go).
const firstProcOID uint32 = 1 << 27

// procs is every built-in function: the type I/O functions and the
// functions behind operators (oprproc.go) with their PostgreSQL OIDs,
// then Eddy's scalar functions and aggregates numbered in name and
// signature order (stable for a given build).
var procs, procsByOID, procsByName = func() ([]*procInfo, map[uint32]*procInfo, map[string]*procInfo) {
	var out []*procInfo
	for name, oid := range ioProcs {
		out = append(out, &procInfo{oid: oid, name: name, kind: 'f', strict: true})
	}
	out = append(out, operatorProcInfos()...)
	out = append(out, castProcInfos()...)
	out = append(out, concatProcs...)
	var fns []*procInfo
	for _, b := range expr.Builtins() {
		p := &procInfo{name: b.Name, kind: 'f', strict: b.Strict, volatile: b.Volatile, ret: 2283}
		for _, a := range b.Args {
			p.args = append(p.args, argOID(a, b.Poly))
		}
		if !b.Poly {
			p.ret = b.Ret.OID()
		}
		fns = append(fns, p)
	}
	for k := expr.AggKind(0); k.String() != "?"; k++ {
		d := k.Def()
		ret := uint32(2283)
		if t, ok := d.Result(repr.Int8); ok {
			ret = t.OID()
		}
		fns = append(fns, &procInfo{name: d.Name, kind: 'a', args: []uint32{2283}, ret: ret})
	}
	sort.Slice(fns, func(i, j int) bool {
		if fns[i].name != fns[j].name {
			return fns[i].name < fns[j].name
		}
		return fmt.Sprint(fns[i].args) < fmt.Sprint(fns[j].args)
	})
	for i, p := range fns {
		p.oid = firstProcOID + uint32(i)
	}
	out = append(out, fns...)
	byOID, byName := map[uint32]*procInfo{}, map[string]*procInfo{}
	for _, p := range out {
		byOID[p.oid] = p
		if byName[p.name] == nil {
			byName[p.name] = p
		}
	}
	return out, byOID, byName
}()

// argOID is the pg_proc type OID of a parameter.
func argOID(t repr.T, poly bool) uint32 {
	if poly || t.Family > repr.FamArray && t.Family != repr.FamJSONPath {
		return 2283
	}
	return t.OID()
}

func procByName(name string) *procInfo { return procsByName[name] }
func procByOID(oid uint32) *procInfo   { return procsByOID[oid] }

func init() {
	defSysRel(110, 1255, nsPgCatalog, "pg_proc", false,
		"oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost real, prorows real, provariadic oid, prosupport regproc, prokind \"char\", prosecdef boolean, proleakproof boolean, proisstrict boolean, proretset boolean, provolatile \"char\", proparallel \"char\", pronargs smallint, pronargdefaults smallint, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes \"char\"[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]",
		rowsProc)
}

// rowsProc lists the built-in functions.
func rowsProc(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_proc"]
	out := make([]repr.Row, 0, len(procs))
	for _, p := range procs {
		args := make([]repr.Datum, len(p.args))
		for i, a := range p.args {
			args[i] = oidD(a)
		}
		vol := byte('i')
		if p.volatile {
			vol = 'v'
		}
		acl := repr.Null
		if acls := s.cat.objACLs; acls != nil && len(acls.Funcs) > 0 {
			acl = s.aclDatum(acls.Funcs[p.sig()])
		}
		out = append(out, r.row(map[string]repr.Datum{"proacl": acl,
			"oid": oidD(p.oid), "proname": nameD(p.name), "pronamespace": oidD(oidPgCatalog), "proowner": oidD(oidSuperuser),
			"prolang": oidD(12), "procost": repr.NewFloat(1), "prokind": charD(p.kind), "proisstrict": boolD(p.strict),
			"provolatile": charD(vol), "proparallel": charD('s'), "pronargs": intD(len(p.args)),
			"prorettype": oidD(p.ret), "proargtypes": repr.NewArray(args), "prosrc": repr.NewText(p.name),
		}))
	}
	return append(out, sqlFunctionRows(s, r)...)
}

// addProcFuncs adds the pg_proc-reading catalog functions.
func addProcFuncs() {
	catalogFuncs["pg_get_function_arguments"] = func(_ sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
		if p := procByOID(uint32(a[0].Int())); p != nil {
			return repr.NewText(p.argNames()), nil
		}
		return repr.Null, nil
	}
	catalogFuncs["pg_get_function_identity_arguments"] = catalogFuncs["pg_get_function_arguments"]
	// Built-in functions have no SQL-standard body (psql's \df+ reads it).
	catalogFuncs["pg_get_function_sqlbody"] = func(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
		return repr.Null, nil
	}
	catalogFuncs["pg_get_function_result"] = func(_ sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
		p := procByOID(uint32(a[0].Int()))
		if p == nil {
			return repr.Null, nil
		}
		if t, ok := repr.FromOID(p.ret); ok {
			return repr.NewText(t.Name()), nil
		}
		return repr.NewText(pseudoTypeNames[p.ret]), nil
	}
	addFunctionDefFuncs() // SQL functions (function_catalog.go)
}

// firstOperatorOID and firstCastOID number pg_operator's and pg_cast's
// rows (in signature order: stable for a given build).
const (
	firstOperatorOID uint32 = 1<<27 + 1<<20
	firstCastOID     uint32 = 1<<27 + 1<<21
)

func init() {
	defSysRel(166, 2617, nsPgCatalog, "pg_operator", false,
		"oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind \"char\", oprcanmerge boolean, oprcanhash boolean, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc",
		rowsOperator)
	defSysRel(167, 2605, nsPgCatalog, "pg_cast", false,
		"oid oid, castsource oid, casttarget oid, castfunc oid, castcontext \"char\", castmethod \"char\"", rowsCast)
}

// operators are the operator overloads in name and signature order.
var operators = func() []expr.Builtin {
	ops := expr.Operators()
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Name != ops[j].Name {
			return ops[i].Name < ops[j].Name
		}
		return fmt.Sprint(ops[i].Args) < fmt.Sprint(ops[j].Args)
	})
	return ops
}()

// operatorProcInfos are the pg_proc rows of the functions behind
// operators (operatorProcs), in operator order.
func operatorProcInfos() []*procInfo {
	var out []*procInfo
	for _, op := range operators {
		sig, ok := operatorSig(op)
		if !ok {
			continue
		}
		if f, ok := operatorProcs[sig]; ok {
			p := &procInfo{oid: f.oid, name: f.name, kind: 'f', ret: op.Ret.OID(), strict: op.Strict, volatile: op.Volatile}
			if sig.left != 0 {
				p.args = append(p.args, sig.left)
			}
			p.args = append(p.args, sig.right)
			out = append(out, p)
		}
	}
	for _, op := range crossOperators {
		f := crossOperatorProcs[op]
		out = append(out, &procInfo{oid: f.oid, name: f.name, kind: 'f', args: []uint32{op.left, op.right}, ret: f.ret, strict: true})
	}
	return out
}

// crossOperators are the signatures of crossOperatorProcs in name and
// type order.
var crossOperators = func() []opSig {
	out := slices.Collect(maps.Keys(crossOperatorProcs))
	slices.SortFunc(out, func(a, b opSig) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.left, b.left), cmp.Compare(a.right, b.right))
	})
	return out
}()

// operatorSig is op's signature (ok false for a polymorphic one).
func operatorSig(op expr.Builtin) (opSig, bool) {
	if op.Poly {
		return opSig{}, false
	}
	sig := opSig{name: op.Name}
	switch len(op.Args) {
	case 1:
		sig.right = argOID(op.Args[0], false)
	case 2:
		sig.left, sig.right = argOID(op.Args[0], false), argOID(op.Args[1], false)
	default:
		return opSig{}, false
	}
	return sig, true
}

func rowsOperator(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_operator"]
	out := make([]repr.Row, 0, len(operators))
	for i, op := range operators {
		kind, left, right := byte('b'), uint32(0), uint32(0)
		if len(op.Args) == 1 {
			kind, right = 'l', argOID(op.Args[0], op.Poly)
		} else if len(op.Args) == 2 {
			left, right = argOID(op.Args[0], op.Poly), argOID(op.Args[1], op.Poly)
		}
		ret := uint32(2283)
		if !op.Poly {
			ret = op.Ret.OID()
		}
		code := uint32(0)
		if sig, ok := operatorSig(op); ok {
			code = operatorProcs[sig].oid
		}
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(firstOperatorOID + uint32(i)), "oprname": nameD(op.Name),
			"oprnamespace": oidD(oidPgCatalog), "oprowner": oidD(oidSuperuser), "oprkind": charD(kind),
			"oprleft": oidD(left), "oprright": oidD(right), "oprresult": oidD(ret), "oprcode": oidD(code)}))
	}
	for i, sig := range crossOperators {
		f := crossOperatorProcs[sig]
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(firstOperatorOID + uint32(len(operators)+i)), "oprname": nameD(sig.name),
			"oprnamespace": oidD(oidPgCatalog), "oprowner": oidD(oidSuperuser), "oprkind": charD('b'),
			"oprleft": oidD(sig.left), "oprright": oidD(sig.right), "oprresult": oidD(f.ret), "oprcode": oidD(f.oid)}))
	}
	return out
}

func rowsCast(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_cast"]
	var out []repr.Row
	i := uint32(0)
	repr.BuiltinCasts(func(from, to uint32, c repr.CastContext) {
		ctx := map[repr.CastContext]byte{repr.CastImplicit: 'i', repr.CastAssignment: 'a', repr.CastExplicit: 'e'}[c]
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(firstCastOID + i), "castsource": oidD(from),
			"casttarget": oidD(to), "castfunc": oidD(castProcs[[2]uint32{from, to}]), "castcontext": charD(ctx),
			"castmethod": charD(castMethod(from, to))}))
		i++
	})
	return out
}
