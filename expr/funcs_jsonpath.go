package expr

import (
	"sync"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr/jsonpath"
	"github.com/eddydb/eddy/repr"
)

// The SQL/JSON path functions (PostgreSQL 15): jsonb_path_exists,
// jsonb_path_match, jsonb_path_query (set-returning),
// jsonb_path_query_array and jsonb_path_query_first, each with optional
// vars and silent arguments and a _tz variant whose datetime comparisons
// may use the session time zone, and the operators @? and @@ (silent,
// without vars). The path language itself is expr/jsonpath's. Only the
// _tz variants depend on the session, so the others are immutable and
// may appear in materialized views.
func init() {
	j, p, b := repr.JSONB, repr.JSONPath, repr.Bool
	for _, tz := range []bool{false, true} {
		sfx := ""
		if tz {
			sfx = "_tz"
		}
		for _, args := range [][]repr.T{{j, p}, {j, p, j}, {j, p, j, b}} {
			fn("jsonb_path_exists"+sfx, b, pathExists(tz, false), args...).zoned = tz
			fn("jsonb_path_match"+sfx, b, pathMatch(tz, false), args...).zoned = tz
			fn("jsonb_path_query_array"+sfx, j, pathQueryArray(tz), args...).zoned = tz
			fn("jsonb_path_query_first"+sfx, j, pathQueryFirst(tz), args...).zoned = tz
			tableFn("jsonb_path_query"+sfx, col1(j), pathQuery(tz), args...).contextual = tz
		}
	}
	binop("@?", j, p, b, pathExists(false, true))
	binop("@@", j, p, b, pathMatch(false, true))
}

// pathCache holds parsed paths by their text: paths are usually
// constants, so a small cache avoids parsing per row. It is cleared when
// full. Parsed paths are immutable.
var pathCache struct {
	sync.Mutex
	m map[string]*jsonpath.Path
}

func parsedPath(text string) (*jsonpath.Path, error) {
	pathCache.Lock()
	p := pathCache.m[text]
	pathCache.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := jsonpath.Parse(text)
	if err != nil {
		return nil, err
	}
	pathCache.Lock()
	if pathCache.m == nil || len(pathCache.m) >= 256 {
		pathCache.m = map[string]*jsonpath.Path{}
	}
	pathCache.m[text] = p
	pathCache.Unlock()
	return p, nil
}

// runPath evaluates a[1] over a[0] with the optional vars (a[2]) and
// silent (a[3]) arguments; op marks the operators, which are silent and
// have no vars.
func runPath(ctx *Ctx, a []repr.Datum, tz, op, existsOnly bool) (jsonpath.Result, error) {
	path, err := parsedPath(a[1].Text())
	if err != nil {
		return jsonpath.Result{}, err
	}
	doc, err := jsonpath.ParseJSONB(a[0].Text())
	if err != nil {
		return jsonpath.Result{}, err
	}
	opts := &jsonpath.Options{Arith: jsonpathArith, UseTZ: tz, Loc: ctx.Location(), Silent: op}
	if !op {
		vars := jsonpath.Value{}
		varsText := "{}"
		if len(a) > 2 {
			varsText = a[2].Text()
		}
		if vars, err = jsonpath.ParseVars(varsText); err != nil {
			return jsonpath.Result{}, err
		}
		if !vars.IsObject() {
			return jsonpath.Result{}, repr.Errorf(repr.CodeInvalidParameter, "\"vars\" argument is not an object").
				WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
		}
		opts.Vars = &vars
	}
	if len(a) > 3 {
		opts.Silent = a[3].Bool()
	}
	return jsonpath.Exec(path, doc, opts, existsOnly)
}

func pathExists(tz, op bool) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := runPath(ctx, a, tz, op, true)
		if err != nil || r.Failed {
			return repr.Null, err
		}
		return repr.NewBool(len(r.Items) > 0), nil
	}
}

// pathMatch is jsonb_path_match: the path's single boolean result (NULL
// for a null one); anything else is 22038 unless silent.
func pathMatch(tz, op bool) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := runPath(ctx, a, tz, op, false)
		if err != nil {
			return repr.Null, err
		}
		if len(r.Items) == 1 {
			v, isBool, isNull := r.Items[0].Truth()
			switch {
			case isBool:
				return repr.NewBool(v), nil
			case isNull:
				return repr.Null, nil
			}
		}
		if op || len(a) > 3 && a[3].Bool() {
			return repr.Null, nil
		}
		return repr.Null, repr.Errorf("22038", "single boolean result is expected")
	}
}

func pathQueryArray(tz bool) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := runPath(ctx, a, tz, false, false)
		if err != nil {
			return repr.Null, err
		}
		return repr.NewJSONB(jsonpath.Array(r.Items)), nil
	}
}

func pathQueryFirst(tz bool) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := runPath(ctx, a, tz, false, false)
		if err != nil || len(r.Items) == 0 {
			return repr.Null, err
		}
		return repr.NewJSONB(r.Items[0].JSONB()), nil
	}
}

func pathQuery(tz bool) TableGen {
	return func(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		r, err := runPath(ctx, a, tz, false, false)
		if err != nil {
			return err
		}
		row := make([]repr.Datum, 1)
		for _, v := range r.Items {
			row[0] = repr.NewJSONB(v.JSONB())
			if err := emit(row); err != nil {
				return err
			}
		}
		return nil
	}
}

// jsonpathArith is jsonpath's + - * / % on numerics: expr's numeric
// operators, so results and errors (22012) are PostgreSQL's.
func jsonpathArith(op jsonpath.Kind, x, y *apd.Decimal) (*apd.Decimal, error) {
	numericOps.once.Do(func() {
		numericOps.m = map[jsonpath.Kind]*Func{}
		names := map[jsonpath.Kind]string{jsonpath.KAdd: "+", jsonpath.KSub: "-", jsonpath.KMul: "*",
			jsonpath.KDiv: "/", jsonpath.KMod: "%"}
		for k, name := range names {
			for _, f := range binaryOps[name] {
				if len(f.Args) == 2 && f.Args[0].Family == repr.FamNumeric && f.Args[1].Family == repr.FamNumeric {
					numericOps.m[k] = f
				}
			}
		}
	})
	d, err := numericOps.m[op].Impl(nil, []repr.Datum{repr.NewNumeric(x), repr.NewNumeric(y)})
	if err != nil {
		return nil, err
	}
	return d.Numeric(), nil
}

var numericOps struct {
	once sync.Once
	m    map[jsonpath.Kind]*Func
}
