package sql

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// The functions behind Eddy's operators, as PostgreSQL 15 names them
// (pg_operator.oprcode), so that GRANT and REVOKE EXECUTE on them govern
// the operators as in PostgreSQL: revoking int4pl(integer, integer) from
// PUBLIC refuses 1 + 1 to a role without it. Each is a pg_proc row with
// its PostgreSQL OID and the operator's argument and result types; the
// operator calls a statement's planning resolved are checked against
// them (callNeeds), and the operators of statements that are not planned
// before they run by name and argument count (qualifier.operator).
// Operators PostgreSQL has no such overload of (Eddy's wider forms, the
// polymorphic ones) have no function and are not checked.

// opSig is an operator overload: its name and argument type OIDs (left
// 0 for a prefix operator).
type opSig struct {
	name        string
	left, right uint32
}

// opProc is the function PostgreSQL implements an operator with.
type opProc struct {
	name string
	oid  uint32
}

// operatorProcs are PostgreSQL 15's oprcode of Eddy's operators, read
// off its pg_operator and pg_proc.
var operatorProcs = map[opSig]opProc{
	{"!~", 25, 25}:     {"textregexne", 1256},
	{"!~*", 25, 25}:    {"texticregexne", 1239},
	{"!~~", 25, 25}:    {"textnlike", 851},
	{"!~~*", 25, 25}:   {"texticnlike", 1634},
	{"#", 20, 20}:      {"int8xor", 1906},
	{"#", 21, 21}:      {"int2xor", 1894},
	{"#", 23, 23}:      {"int4xor", 1900},
	{"%", 20, 20}:      {"int8mod", 945},
	{"%", 21, 21}:      {"int2mod", 155},
	{"%", 23, 23}:      {"int4mod", 156},
	{"%", 1700, 1700}:  {"numeric_mod", 1729},
	{"&", 20, 20}:      {"int8and", 1904},
	{"&", 21, 21}:      {"int2and", 1892},
	{"&", 23, 23}:      {"int4and", 1898},
	{"*", 20, 20}:      {"int8mul", 465},
	{"*", 21, 21}:      {"int2mul", 152},
	{"*", 23, 23}:      {"int4mul", 141},
	{"*", 700, 700}:    {"float4mul", 202},
	{"*", 700, 701}:    {"float48mul", 279},
	{"*", 701, 700}:    {"float84mul", 283},
	{"*", 701, 701}:    {"float8mul", 216},
	{"*", 701, 1186}:   {"mul_d_interval", 1624},
	{"*", 1186, 701}:   {"interval_mul", 1618},
	{"*", 1700, 1700}:  {"numeric_mul", 1726},
	{"+", 0, 20}:       {"int8up", 1910},
	{"+", 0, 21}:       {"int2up", 1911},
	{"+", 0, 23}:       {"int4up", 1912},
	{"+", 0, 700}:      {"float4up", 1913},
	{"+", 0, 701}:      {"float8up", 1914},
	{"+", 0, 1700}:     {"numeric_uplus", 1915},
	{"+", 20, 20}:      {"int8pl", 463},
	{"+", 21, 21}:      {"int2pl", 176},
	{"+", 23, 23}:      {"int4pl", 177},
	{"+", 23, 1082}:    {"integer_pl_date", 2550},
	{"+", 700, 700}:    {"float4pl", 204},
	{"+", 700, 701}:    {"float48pl", 281},
	{"+", 701, 700}:    {"float84pl", 285},
	{"+", 701, 701}:    {"float8pl", 218},
	{"+", 1082, 23}:    {"date_pli", 1141},
	{"+", 1082, 1083}:  {"datetime_pl", 1272},
	{"+", 1082, 1186}:  {"date_pl_interval", 2071},
	{"+", 1083, 1186}:  {"time_pl_interval", 1747},
	{"+", 1114, 1186}:  {"timestamp_pl_interval", 2032},
	{"+", 1184, 1186}:  {"timestamptz_pl_interval", 1189},
	{"+", 1186, 1082}:  {"interval_pl_date", 2546},
	{"+", 1186, 1114}:  {"interval_pl_timestamp", 2548},
	{"+", 1186, 1184}:  {"interval_pl_timestamptz", 2549},
	{"+", 1186, 1186}:  {"interval_pl", 1169},
	{"+", 1700, 1700}:  {"numeric_add", 1724},
	{"-", 0, 20}:       {"int8um", 462},
	{"-", 0, 21}:       {"int2um", 213},
	{"-", 0, 23}:       {"int4um", 212},
	{"-", 0, 700}:      {"float4um", 206},
	{"-", 0, 701}:      {"float8um", 220},
	{"-", 0, 1186}:     {"interval_um", 1168},
	{"-", 0, 1700}:     {"numeric_uminus", 1771},
	{"-", 20, 20}:      {"int8mi", 464},
	{"-", 21, 21}:      {"int2mi", 180},
	{"-", 23, 23}:      {"int4mi", 181},
	{"-", 700, 700}:    {"float4mi", 205},
	{"-", 700, 701}:    {"float48mi", 282},
	{"-", 701, 700}:    {"float84mi", 286},
	{"-", 701, 701}:    {"float8mi", 219},
	{"-", 1082, 23}:    {"date_mii", 1142},
	{"-", 1082, 1082}:  {"date_mi", 1140},
	{"-", 1082, 1186}:  {"date_mi_interval", 2072},
	{"-", 1083, 1083}:  {"time_mi_time", 1690},
	{"-", 1083, 1186}:  {"time_mi_interval", 1748},
	{"-", 1114, 1114}:  {"timestamp_mi", 2031},
	{"-", 1114, 1186}:  {"timestamp_mi_interval", 2033},
	{"-", 1184, 1184}:  {"timestamptz_mi", 1188},
	{"-", 1184, 1186}:  {"timestamptz_mi_interval", 1190},
	{"-", 1186, 1186}:  {"interval_mi", 1170},
	{"-", 1700, 1700}:  {"numeric_sub", 1725},
	{"-", 3802, 25}:    {"pg_catalog.jsonb_delete", 3302},
	{"->", 114, 23}:    {"json_array_element", 3949},
	{"->", 114, 25}:    {"json_object_field", 3947},
	{"->", 3802, 23}:   {"jsonb_array_element", 3215},
	{"->", 3802, 25}:   {"jsonb_object_field", 3478},
	{"->>", 114, 23}:   {"json_array_element_text", 3950},
	{"->>", 114, 25}:   {"json_object_field_text", 3948},
	{"->>", 3802, 23}:  {"jsonb_array_element_text", 3216},
	{"->>", 3802, 25}:  {"jsonb_object_field_text", 3214},
	{"/", 20, 20}:      {"int8div", 466},
	{"/", 21, 21}:      {"int2div", 153},
	{"/", 23, 23}:      {"int4div", 154},
	{"/", 700, 700}:    {"float4div", 203},
	{"/", 700, 701}:    {"float48div", 280},
	{"/", 701, 700}:    {"float84div", 284},
	{"/", 701, 701}:    {"float8div", 217},
	{"/", 1186, 701}:   {"interval_div", 1326},
	{"/", 1700, 1700}:  {"numeric_div", 1727},
	{"<", 16, 16}:      {"boollt", 56},
	{"<", 17, 17}:      {"bytealt", 1949},
	{"<", 20, 20}:      {"int8lt", 469},
	{"<", 21, 21}:      {"int2lt", 64},
	{"<", 23, 23}:      {"int4lt", 66},
	{"<", 25, 25}:      {"text_lt", 740},
	{"<", 700, 700}:    {"float4lt", 289},
	{"<", 701, 701}:    {"float8lt", 295},
	{"<", 1042, 1042}:  {"bpcharlt", 1049},
	{"<", 1082, 1082}:  {"date_lt", 1087},
	{"<", 1083, 1083}:  {"time_lt", 1102},
	{"<", 1114, 1114}:  {"timestamp_lt", 2054},
	{"<", 1184, 1184}:  {"timestamptz_lt", 1154},
	{"<", 1186, 1186}:  {"interval_lt", 1164},
	{"<", 1700, 1700}:  {"numeric_lt", 1722},
	{"<", 2249, 2249}:  {"record_lt", 2983},
	{"<", 2950, 2950}:  {"uuid_lt", 2954},
	{"<", 3802, 3802}:  {"jsonb_lt", 4039},
	{"<<", 20, 23}:     {"int8shl", 1908},
	{"<<", 21, 23}:     {"int2shl", 1896},
	{"<<", 23, 23}:     {"int4shl", 1902},
	{"<=", 16, 16}:     {"boolle", 1691},
	{"<=", 17, 17}:     {"byteale", 1950},
	{"<=", 20, 20}:     {"int8le", 471},
	{"<=", 21, 21}:     {"int2le", 148},
	{"<=", 23, 23}:     {"int4le", 149},
	{"<=", 25, 25}:     {"text_le", 741},
	{"<=", 700, 700}:   {"float4le", 290},
	{"<=", 701, 701}:   {"float8le", 296},
	{"<=", 1042, 1042}: {"bpcharle", 1050},
	{"<=", 1082, 1082}: {"date_le", 1088},
	{"<=", 1083, 1083}: {"time_le", 1103},
	{"<=", 1114, 1114}: {"timestamp_le", 2055},
	{"<=", 1184, 1184}: {"timestamptz_le", 1155},
	{"<=", 1186, 1186}: {"interval_le", 1165},
	{"<=", 1700, 1700}: {"numeric_le", 1723},
	{"<=", 2249, 2249}: {"record_le", 2985},
	{"<=", 2950, 2950}: {"uuid_le", 2955},
	{"<=", 3802, 3802}: {"jsonb_le", 4041},
	{"<>", 16, 16}:     {"boolne", 84},
	{"<>", 17, 17}:     {"byteane", 1953},
	{"<>", 20, 20}:     {"int8ne", 468},
	{"<>", 21, 21}:     {"int2ne", 145},
	{"<>", 23, 23}:     {"int4ne", 144},
	{"<>", 25, 25}:     {"textne", 157},
	{"<>", 700, 700}:   {"float4ne", 288},
	{"<>", 701, 701}:   {"float8ne", 294},
	{"<>", 1042, 1042}: {"bpcharne", 1053},
	{"<>", 1082, 1082}: {"date_ne", 1091},
	{"<>", 1083, 1083}: {"time_ne", 1106},
	{"<>", 1114, 1114}: {"timestamp_ne", 2053},
	{"<>", 1184, 1184}: {"timestamptz_ne", 1153},
	{"<>", 1186, 1186}: {"interval_ne", 1163},
	{"<>", 1700, 1700}: {"numeric_ne", 1719},
	{"<>", 2249, 2249}: {"record_ne", 2982},
	{"<>", 2950, 2950}: {"uuid_ne", 2959},
	{"<>", 3802, 3802}: {"jsonb_ne", 4038},
	{"<@", 3802, 3802}: {"jsonb_contained", 4050},
	{"=", 16, 16}:      {"booleq", 60},
	{"=", 17, 17}:      {"byteaeq", 1948},
	{"=", 20, 20}:      {"int8eq", 467},
	{"=", 21, 21}:      {"int2eq", 63},
	{"=", 23, 23}:      {"int4eq", 65},
	{"=", 25, 25}:      {"texteq", 67},
	{"=", 700, 700}:    {"float4eq", 287},
	{"=", 701, 701}:    {"float8eq", 293},
	{"=", 1042, 1042}:  {"bpchareq", 1048},
	{"=", 1082, 1082}:  {"date_eq", 1086},
	{"=", 1083, 1083}:  {"time_eq", 1145},
	{"=", 1114, 1114}:  {"timestamp_eq", 2052},
	{"=", 1184, 1184}:  {"timestamptz_eq", 1152},
	{"=", 1186, 1186}:  {"interval_eq", 1162},
	{"=", 1700, 1700}:  {"numeric_eq", 1718},
	{"=", 2249, 2249}:  {"record_eq", 2981},
	{"=", 2950, 2950}:  {"uuid_eq", 2956},
	{"=", 3802, 3802}:  {"jsonb_eq", 4043},
	{">", 16, 16}:      {"boolgt", 57},
	{">", 17, 17}:      {"byteagt", 1951},
	{">", 20, 20}:      {"int8gt", 470},
	{">", 21, 21}:      {"int2gt", 146},
	{">", 23, 23}:      {"int4gt", 147},
	{">", 25, 25}:      {"text_gt", 742},
	{">", 700, 700}:    {"float4gt", 291},
	{">", 701, 701}:    {"float8gt", 297},
	{">", 1042, 1042}:  {"bpchargt", 1051},
	{">", 1082, 1082}:  {"date_gt", 1089},
	{">", 1083, 1083}:  {"time_gt", 1104},
	{">", 1114, 1114}:  {"timestamp_gt", 2057},
	{">", 1184, 1184}:  {"timestamptz_gt", 1157},
	{">", 1186, 1186}:  {"interval_gt", 1167},
	{">", 1700, 1700}:  {"numeric_gt", 1720},
	{">", 2249, 2249}:  {"record_gt", 2984},
	{">", 2950, 2950}:  {"uuid_gt", 2958},
	{">", 3802, 3802}:  {"jsonb_gt", 4040},
	{">=", 16, 16}:     {"boolge", 1692},
	{">=", 17, 17}:     {"byteage", 1952},
	{">=", 20, 20}:     {"int8ge", 472},
	{">=", 21, 21}:     {"int2ge", 151},
	{">=", 23, 23}:     {"int4ge", 150},
	{">=", 25, 25}:     {"text_ge", 743},
	{">=", 700, 700}:   {"float4ge", 292},
	{">=", 701, 701}:   {"float8ge", 298},
	{">=", 1042, 1042}: {"bpcharge", 1052},
	{">=", 1082, 1082}: {"date_ge", 1090},
	{">=", 1083, 1083}: {"time_ge", 1105},
	{">=", 1114, 1114}: {"timestamp_ge", 2056},
	{">=", 1184, 1184}: {"timestamptz_ge", 1156},
	{">=", 1186, 1186}: {"interval_ge", 1166},
	{">=", 1700, 1700}: {"numeric_ge", 1721},
	{">=", 2249, 2249}: {"record_ge", 2986},
	{">=", 2950, 2950}: {"uuid_ge", 2957},
	{">=", 3802, 3802}: {"jsonb_ge", 4042},
	{">>", 20, 23}:     {"int8shr", 1909},
	{">>", 21, 23}:     {"int2shr", 1897},
	{">>", 23, 23}:     {"int4shr", 1903},
	{"?", 3802, 25}:    {"jsonb_exists", 4047},
	{"@>", 3802, 3802}: {"jsonb_contains", 4046},
	{"^", 701, 701}:    {"dpow", 232},
	{"|", 20, 20}:      {"int8or", 1905},
	{"|", 21, 21}:      {"int2or", 1893},
	{"|", 23, 23}:      {"int4or", 1899},
	{"||", 17, 17}:     {"byteacat", 2011},
	{"||", 25, 25}:     {"textcat", 1258},
	{"||", 3802, 3802}: {"jsonb_concat", 3301},
	{"~", 0, 20}:       {"int8not", 1907},
	{"~", 0, 21}:       {"int2not", 1895},
	{"~", 0, 23}:       {"int4not", 1901},
	{"~", 25, 25}:      {"textregexeq", 1254},
	{"~*", 25, 25}:     {"texticregexeq", 1238},
	{"~~", 25, 25}:     {"textlike", 850},
	{"~~*", 25, 25}:    {"texticlike", 1633},
}

// crossProc is the function of an operator PostgreSQL has for two
// argument types where Eddy casts one argument to the other's type: its
// name, OID and result type OID.
type crossProc struct {
	name     string
	oid, ret uint32
}

// crossOperatorProcs are PostgreSQL 15's operators, and their oprcode,
// for argument types Eddy accepts by casting one of them (int4 + int8 is
// int48pl(integer, bigint) there, int8pl of a cast here; date < timestamp
// is date_lt_timestamp). PostgreSQL applies them with no cast, so a call
// with those argument types needs EXECUTE on them and on no cast
// function (callNeeds). They are pg_operator rows too.
var crossOperatorProcs = map[opSig]crossProc{
	{"!~", 1042, 25}:   {"bpcharregexne", 1659, 16},
	{"!~*", 1042, 25}:  {"bpcharicregexne", 1657, 16},
	{"!~~", 1042, 25}:  {"bpcharnlike", 1632, 16},
	{"!~~*", 1042, 25}: {"bpcharicnlike", 1661, 16},
	{"*", 20, 21}:      {"int82mul", 839, 20},
	{"*", 20, 23}:      {"int84mul", 1276, 20},
	{"*", 21, 20}:      {"int28mul", 943, 20},
	{"*", 21, 23}:      {"int24mul", 170, 23},
	{"*", 23, 20}:      {"int48mul", 1280, 20},
	{"*", 23, 21}:      {"int42mul", 171, 23},
	{"+", 20, 21}:      {"int82pl", 837, 20},
	{"+", 20, 23}:      {"int84pl", 1274, 20},
	{"+", 21, 20}:      {"int28pl", 841, 20},
	{"+", 21, 23}:      {"int24pl", 178, 23},
	{"+", 23, 20}:      {"int48pl", 1278, 20},
	{"+", 23, 21}:      {"int42pl", 179, 23},
	{"+", 1083, 1082}:  {"timedate_pl", 1296, 1114},
	{"+", 1186, 1083}:  {"interval_pl_time", 1848, 1083},
	{"-", 20, 21}:      {"int82mi", 838, 20},
	{"-", 20, 23}:      {"int84mi", 1275, 20},
	{"-", 21, 20}:      {"int28mi", 942, 20},
	{"-", 21, 23}:      {"int24mi", 182, 23},
	{"-", 23, 20}:      {"int48mi", 1279, 20},
	{"-", 23, 21}:      {"int42mi", 183, 23},
	{"/", 20, 21}:      {"int82div", 840, 20},
	{"/", 20, 23}:      {"int84div", 1277, 20},
	{"/", 21, 20}:      {"int28div", 948, 20},
	{"/", 21, 23}:      {"int24div", 172, 23},
	{"/", 23, 20}:      {"int48div", 1281, 20},
	{"/", 23, 21}:      {"int42div", 173, 23},
	{"<", 20, 21}:      {"int82lt", 1858, 16},
	{"<", 20, 23}:      {"int84lt", 476, 16},
	{"<", 21, 20}:      {"int28lt", 1852, 16},
	{"<", 21, 23}:      {"int24lt", 160, 16},
	{"<", 23, 20}:      {"int48lt", 854, 16},
	{"<", 23, 21}:      {"int42lt", 161, 16},
	{"<", 700, 701}:    {"float48lt", 301, 16},
	{"<", 701, 700}:    {"float84lt", 307, 16},
	{"<", 1082, 1114}:  {"date_lt_timestamp", 2338, 16},
	{"<", 1082, 1184}:  {"date_lt_timestamptz", 2351, 16},
	{"<", 1114, 1082}:  {"timestamp_lt_date", 2364, 16},
	{"<", 1114, 1184}:  {"timestamp_lt_timestamptz", 2520, 16},
	{"<", 1184, 1082}:  {"timestamptz_lt_date", 2377, 16},
	{"<", 1184, 1114}:  {"timestamptz_lt_timestamp", 2527, 16},
	{"<=", 20, 21}:     {"int82le", 1860, 16},
	{"<=", 20, 23}:     {"int84le", 478, 16},
	{"<=", 21, 20}:     {"int28le", 1854, 16},
	{"<=", 21, 23}:     {"int24le", 166, 16},
	{"<=", 23, 20}:     {"int48le", 856, 16},
	{"<=", 23, 21}:     {"int42le", 167, 16},
	{"<=", 700, 701}:   {"float48le", 302, 16},
	{"<=", 701, 700}:   {"float84le", 308, 16},
	{"<=", 1082, 1114}: {"date_le_timestamp", 2339, 16},
	{"<=", 1082, 1184}: {"date_le_timestamptz", 2352, 16},
	{"<=", 1114, 1082}: {"timestamp_le_date", 2365, 16},
	{"<=", 1114, 1184}: {"timestamp_le_timestamptz", 2521, 16},
	{"<=", 1184, 1082}: {"timestamptz_le_date", 2378, 16},
	{"<=", 1184, 1114}: {"timestamptz_le_timestamp", 2528, 16},
	{"<>", 20, 21}:     {"int82ne", 1857, 16},
	{"<>", 20, 23}:     {"int84ne", 475, 16},
	{"<>", 21, 20}:     {"int28ne", 1851, 16},
	{"<>", 21, 23}:     {"int24ne", 164, 16},
	{"<>", 23, 20}:     {"int48ne", 853, 16},
	{"<>", 23, 21}:     {"int42ne", 165, 16},
	{"<>", 700, 701}:   {"float48ne", 300, 16},
	{"<>", 701, 700}:   {"float84ne", 306, 16},
	{"<>", 1082, 1114}: {"date_ne_timestamp", 2343, 16},
	{"<>", 1082, 1184}: {"date_ne_timestamptz", 2356, 16},
	{"<>", 1114, 1082}: {"timestamp_ne_date", 2369, 16},
	{"<>", 1114, 1184}: {"timestamp_ne_timestamptz", 2525, 16},
	{"<>", 1184, 1082}: {"timestamptz_ne_date", 2382, 16},
	{"<>", 1184, 1114}: {"timestamptz_ne_timestamp", 2532, 16},
	{"=", 20, 21}:      {"int82eq", 1856, 16},
	{"=", 20, 23}:      {"int84eq", 474, 16},
	{"=", 21, 20}:      {"int28eq", 1850, 16},
	{"=", 21, 23}:      {"int24eq", 158, 16},
	{"=", 23, 20}:      {"int48eq", 852, 16},
	{"=", 23, 21}:      {"int42eq", 159, 16},
	{"=", 700, 701}:    {"float48eq", 299, 16},
	{"=", 701, 700}:    {"float84eq", 305, 16},
	{"=", 1082, 1114}:  {"date_eq_timestamp", 2340, 16},
	{"=", 1082, 1184}:  {"date_eq_timestamptz", 2353, 16},
	{"=", 1114, 1082}:  {"timestamp_eq_date", 2366, 16},
	{"=", 1114, 1184}:  {"timestamp_eq_timestamptz", 2522, 16},
	{"=", 1184, 1082}:  {"timestamptz_eq_date", 2379, 16},
	{"=", 1184, 1114}:  {"timestamptz_eq_timestamp", 2529, 16},
	{">", 20, 21}:      {"int82gt", 1859, 16},
	{">", 20, 23}:      {"int84gt", 477, 16},
	{">", 21, 20}:      {"int28gt", 1853, 16},
	{">", 21, 23}:      {"int24gt", 162, 16},
	{">", 23, 20}:      {"int48gt", 855, 16},
	{">", 23, 21}:      {"int42gt", 163, 16},
	{">", 700, 701}:    {"float48gt", 303, 16},
	{">", 701, 700}:    {"float84gt", 309, 16},
	{">", 1082, 1114}:  {"date_gt_timestamp", 2341, 16},
	{">", 1082, 1184}:  {"date_gt_timestamptz", 2354, 16},
	{">", 1114, 1082}:  {"timestamp_gt_date", 2367, 16},
	{">", 1114, 1184}:  {"timestamp_gt_timestamptz", 2523, 16},
	{">", 1184, 1082}:  {"timestamptz_gt_date", 2380, 16},
	{">", 1184, 1114}:  {"timestamptz_gt_timestamp", 2530, 16},
	{">=", 20, 21}:     {"int82ge", 1861, 16},
	{">=", 20, 23}:     {"int84ge", 479, 16},
	{">=", 21, 20}:     {"int28ge", 1855, 16},
	{">=", 21, 23}:     {"int24ge", 168, 16},
	{">=", 23, 20}:     {"int48ge", 857, 16},
	{">=", 23, 21}:     {"int42ge", 169, 16},
	{">=", 700, 701}:   {"float48ge", 304, 16},
	{">=", 701, 700}:   {"float84ge", 310, 16},
	{">=", 1082, 1114}: {"date_ge_timestamp", 2342, 16},
	{">=", 1082, 1184}: {"date_ge_timestamptz", 2355, 16},
	{">=", 1114, 1082}: {"timestamp_ge_date", 2368, 16},
	{">=", 1114, 1184}: {"timestamp_ge_timestamptz", 2524, 16},
	{">=", 1184, 1082}: {"timestamptz_ge_date", 2381, 16},
	{">=", 1184, 1114}: {"timestamptz_ge_timestamp", 2531, 16},
	{"~", 1042, 25}:    {"bpcharregexeq", 1658, 16},
	{"~*", 1042, 25}:   {"bpcharicregexeq", 1656, 16},
	{"~~", 1042, 25}:   {"bpcharlike", 1631, 16},
	{"~~*", 1042, 25}:  {"bpchariclike", 1660, 16},
}

// concatProcs are PostgreSQL 15's text || anynonarray and anynonarray ||
// text (SQL functions: $1 || $2::text), which Eddy applies as
// instances of one polymorphic || (concatNeeds).
var concatProcs = []*procInfo{
	{oid: 2003, name: "textanycat", kind: 'f', args: []uint32{25, 2776}, ret: 25, strict: true},
	{oid: 2004, name: "anytextcat", kind: 'f', args: []uint32{2776, 25}, ret: 25, strict: true},
}

// concatNeeds are the EXECUTE needs of Eddy's || over a string and a
// value that is not text (an instance of its polymorphic ||), as
// PostgreSQL resolves it: textcat(text, text) with the casts of both
// sides to text (char(n) by text(character)) when both are strings, else
// textanycat or anytextcat, whose body casts the other side to text and
// calls textcat. ok is false for another call.
func concatNeeds(c planner.Call) ([]privNeed, bool) {
	f := c.Fn
	if f.Name != "||" || len(c.From) != 2 || f.Ret != repr.Text || f.Args[0] == repr.Text && f.Args[1] == repr.Text {
		return nil, false
	}
	str := func(t repr.T) bool { return t.Family == repr.FamText || t.Family == repr.FamUnknown }
	l, r := c.From[0], c.From[1]
	if l.Family == repr.FamArray || r.Family == repr.FamArray || !str(l) && !str(r) {
		return nil, false
	}
	text := []repr.T{repr.Text, repr.Text}
	out := castNeeds(c.From, text)
	textcat := procWithArgs("textcat", []uint32{25, 25})
	out = append(out, privNeed{fn: textcat.name, nargs: 2, sig: textcat.sig()})
	switch {
	case !str(l):
		out = append(out, privNeed{fn: "anytextcat", nargs: 2, sig: concatProcs[1].sig()})
	case !str(r):
		out = append(out, privNeed{fn: "textanycat", nargs: 2, sig: concatProcs[0].sig()})
	}
	return out, true
}

// operatorFuncNames are the names of the functions behind each operator,
// by operator name and argument count ("+/2").
var operatorFuncNames = func() map[string][]string {
	out := map[string][]string{}
	add := func(sig opSig, name string) {
		key := sig.name + "/2"
		if sig.left == 0 {
			key = sig.name + "/1"
		}
		if !slices.Contains(out[key], name) {
			out[key] = append(out[key], name)
		}
	}
	for sig, f := range operatorProcs {
		add(sig, f.name)
	}
	for sig, f := range crossOperatorProcs {
		add(sig, f.name)
	}
	return out
}()

// operator records that a statement applies the operators of e: EXECUTE
// on every function behind an operator of that name and argument count
// (which may refuse, never wrongly admit; a planned query's resolved
// overloads replace these, callNeeds). BETWEEN compares with >= and <=.
func (q *qualifier) operator(e *pg.A_Expr) {
	if q.priv == 0 || len(e.Name) == 0 {
		return
	}
	name := e.Name[len(e.Name)-1].GetString_().GetSval()
	names := []string{name}
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		names = []string{">=", "<="}
	}
	nargs := 2
	if e.Lexpr == nil {
		nargs = 1
	}
	for _, op := range names {
		key := op + "/" + itoa(nargs)
		if q.ops[key] {
			continue
		}
		if q.ops == nil {
			q.ops = map[string]bool{}
		}
		q.ops[key] = true
		for _, fn := range operatorFuncNames[key] {
			q.needs = append(q.needs, privNeed{fn: fn, nargs: nargs})
		}
	}
}
