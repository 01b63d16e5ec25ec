package sql

import "sort"

// The functions PostgreSQL 15 casts with (pg_cast.castfunc), as pg_proc
// rows with its names and OIDs, so that GRANT and REVOKE EXECUTE on them
// govern the casts as in PostgreSQL, which checks EXECUTE on the function
// of every cast a statement applies, explicit or implicit, of a column or
// of a constant (1::bigint needs int8(integer)). The casts a statement's
// planning records (planner.Call) are checked against them (callNeeds);
// the casts Eddy applies with no function in PostgreSQL (binary
// coercible, or through text I/O) need none.

// castFunc is a cast function: its name and its argument and result
// type OIDs.
type castFunc struct {
	name     string
	arg, ret uint32
}

// castFuncs are PostgreSQL 15's cast functions between Eddy's types, by
// OID, read off its pg_cast and pg_proc.
var castFuncs = map[uint32]castFunc{
	77:   {"int4", 18, 23},
	78:   {"char", 23, 18},
	235:  {"float8", 21, 701},
	236:  {"float4", 21, 700},
	237:  {"int2", 701, 21},
	238:  {"int2", 700, 21},
	311:  {"float8", 700, 701},
	312:  {"float4", 701, 700},
	313:  {"int4", 21, 23},
	314:  {"int2", 23, 21},
	316:  {"float8", 23, 701},
	317:  {"int4", 701, 23},
	318:  {"float4", 23, 700},
	319:  {"int4", 700, 23},
	401:  {"text", 1042, 25},
	406:  {"text", 19, 25},
	407:  {"name", 25, 19},
	408:  {"bpchar", 19, 1042},
	409:  {"name", 1042, 19},
	480:  {"int4", 20, 23},
	481:  {"int8", 23, 20},
	482:  {"float8", 20, 701},
	483:  {"int8", 701, 20},
	652:  {"float4", 20, 700},
	653:  {"int8", 700, 20},
	714:  {"int2", 20, 21},
	754:  {"int8", 21, 20},
	860:  {"bpchar", 18, 1042},
	944:  {"char", 25, 18},
	946:  {"text", 18, 25},
	1079: {"regclass", 25, 2205},
	1174: {"timestamptz", 1082, 1184},
	1178: {"date", 1184, 1082},
	1287: {"oid", 20, 26},
	1288: {"int8", 26, 20},
	1316: {"time", 1114, 1083},
	1370: {"interval", 1083, 1186},
	1400: {"name", 1043, 19},
	1401: {"varchar", 19, 1043},
	1419: {"time", 1186, 1083},
	1740: {"numeric", 23, 1700},
	1742: {"numeric", 700, 1700},
	1743: {"numeric", 701, 1700},
	1744: {"int4", 1700, 23},
	1745: {"float4", 1700, 700},
	1746: {"float8", 1700, 701},
	1779: {"int8", 1700, 20},
	1781: {"numeric", 20, 1700},
	1782: {"numeric", 21, 1700},
	1783: {"int2", 1700, 21},
	2019: {"time", 1184, 1083},
	2024: {"timestamp", 1082, 1114},
	2027: {"timestamp", 1184, 1114},
	2028: {"timestamptz", 1114, 1184},
	2029: {"date", 1114, 1082},
	2557: {"bool", 23, 16},
	2558: {"int4", 16, 23},
	2580: {"float8", 3802, 701},
	2971: {"text", 16, 25},
	3449: {"numeric", 3802, 1700},
	3450: {"int2", 3802, 21},
	3451: {"int4", 3802, 23},
	3452: {"int8", 3802, 20},
	3453: {"float4", 3802, 700},
	3556: {"bool", 3802, 16},
}

// castProcs are the OIDs of the functions of PostgreSQL 15's casts
// between Eddy's types, by source and target type OID.
var castProcs = map[[2]uint32]uint32{
	{1042, 1043}: 401,
	{1042, 18}:   944,
	{1042, 19}:   409,
	{1042, 25}:   401,
	{1043, 18}:   944,
	{1043, 19}:   1400,
	{1043, 2205}: 1079,
	{1082, 1114}: 2024,
	{1082, 1184}: 1174,
	{1083, 1186}: 1370,
	{1114, 1082}: 2029,
	{1114, 1083}: 1316,
	{1114, 1184}: 2028,
	{1184, 1082}: 1178,
	{1184, 1083}: 2019,
	{1184, 1114}: 2027,
	{1186, 1083}: 1419,
	{16, 1042}:   2971,
	{16, 1043}:   2971,
	{16, 23}:     2558,
	{16, 25}:     2971,
	{1700, 20}:   1779,
	{1700, 21}:   1783,
	{1700, 23}:   1744,
	{1700, 700}:  1745,
	{1700, 701}:  1746,
	{18, 1042}:   860,
	{18, 1043}:   946,
	{18, 23}:     77,
	{18, 25}:     946,
	{19, 1042}:   408,
	{19, 1043}:   1401,
	{19, 25}:     406,
	{20, 1700}:   1781,
	{20, 21}:     714,
	{20, 2202}:   1287,
	{20, 2205}:   1287,
	{20, 2206}:   1287,
	{20, 23}:     480,
	{20, 24}:     1287,
	{20, 26}:     1287,
	{20, 4089}:   1287,
	{20, 4096}:   1287,
	{20, 700}:    652,
	{20, 701}:    482,
	{21, 1700}:   1782,
	{21, 20}:     754,
	{21, 2202}:   313,
	{21, 2205}:   313,
	{21, 2206}:   313,
	{21, 23}:     313,
	{21, 24}:     313,
	{21, 26}:     313,
	{21, 4089}:   313,
	{21, 4096}:   313,
	{21, 700}:    236,
	{21, 701}:    235,
	{2202, 20}:   1288,
	{2205, 20}:   1288,
	{2206, 20}:   1288,
	{23, 16}:     2557,
	{23, 1700}:   1740,
	{23, 18}:     78,
	{23, 20}:     481,
	{23, 21}:     314,
	{23, 700}:    318,
	{23, 701}:    316,
	{24, 20}:     1288,
	{25, 18}:     944,
	{25, 19}:     407,
	{25, 2205}:   1079,
	{26, 20}:     1288,
	{3802, 16}:   3556,
	{3802, 1700}: 3449,
	{3802, 20}:   3452,
	{3802, 21}:   3450,
	{3802, 23}:   3451,
	{3802, 700}:  3453,
	{3802, 701}:  2580,
	{4089, 20}:   1288,
	{4096, 20}:   1288,
	{700, 1700}:  1742,
	{700, 20}:    653,
	{700, 21}:    238,
	{700, 23}:    319,
	{700, 701}:   311,
	{701, 1700}:  1743,
	{701, 20}:    483,
	{701, 21}:    237,
	{701, 23}:    317,
	{701, 700}:   312,
}

// castProcInfos are the pg_proc rows of the cast functions, in OID order.
func castProcInfos() []*procInfo {
	out := make([]*procInfo, 0, len(castFuncs))
	for oid, f := range castFuncs {
		out = append(out, &procInfo{oid: oid, name: f.name, kind: 'f', args: []uint32{f.arg}, ret: f.ret, strict: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// castProc is the function of the cast from type from to type to (nil:
// the cast needs none).
func castProc(from, to uint32) *procInfo {
	if oid, ok := castProcs[[2]uint32{from, to}]; ok {
		return procByOID(oid)
	}
	return nil
}

// castMethod is pg_cast.castmethod of the cast from from to to: f with a
// function, b between the string types (binary coercible), i otherwise
// (through the types' text I/O).
func castMethod(from, to uint32) byte {
	strs := map[uint32]bool{25: true, 1042: true, 1043: true}
	switch {
	case castProcs[[2]uint32{from, to}] != 0:
		return 'f'
	case strs[from] && strs[to]:
		return 'b'
	}
	return 'i'
}
