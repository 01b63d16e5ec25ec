package repr

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// TZAbbrev is a time zone abbreviation of PostgreSQL's Default set
// (share/timezonesets/Default), which timestamp input, AT TIME ZONE and
// pg_timezone_abbrevs read. A fixed abbreviation is an offset in seconds
// east of UTC and a daylight-saving flag; a dynamic one (Zone set) means
// whatever offset that IANA zone used under this name at the time in
// question, as PostgreSQL's DYNTZ entries do.
type TZAbbrev struct {
	Offset int    // seconds east of UTC; fixed abbreviations only
	DST    bool   // daylight-saving time; fixed abbreviations only
	Zone   string // IANA zone of a dynamic abbreviation, else ""
}

// LookupTZAbbrev returns the abbreviation name (any case).
func LookupTZAbbrev(name string) (TZAbbrev, bool) {
	a, ok := tzAbbrevs[asciiLower(name)]
	return a, ok
}

// TZAbbrevNames returns every abbreviation, upper-cased as PostgreSQL
// lists them, in byte order.
func TZAbbrevNames() []string {
	out := make([]string, 0, len(tzAbbrevs))
	for n := range tzAbbrevs {
		out = append(out, strings.ToUpper(n))
	}
	sort.Strings(out)
	return out
}

// AtUTC returns the offset (seconds east of UTC) and daylight-saving flag
// abbreviation name means at the UTC instant us (microseconds since
// 2000-01-01), as PostgreSQL's DetermineTimeZoneAbbrevOffsetTS: a fixed
// abbreviation's own; for a dynamic one the offset of the zone's period
// of that name in effect at us, else the latest earlier one, else the
// earliest later one, else (the zone never used the name) the zone's
// offset at us.
func (a TZAbbrev) AtUTC(name string, us int64) (int, bool) {
	if a.Zone == "" {
		return a.Offset, a.DST
	}
	loc := abbrevZone(a.Zone)
	if loc == nil {
		return 0, false
	}
	t := TimestampToTime(us).In(loc)
	if off, dst, ok := zoneAbbrevPeriod(t, strings.ToUpper(name)); ok {
		return off, dst
	}
	_, off := t.Zone()
	return off, t.IsDST()
}

// AtLocal returns the offset (seconds east of UTC) abbreviation name means
// for the wall-clock time us, as PostgreSQL's
// DetermineTimeZoneAbbrevOffset: a dynamic abbreviation is interpreted at
// the instant the zone's own rules give that wall time.
func (a TZAbbrev) AtLocal(name string, us int64) int {
	if a.Zone == "" {
		return a.Offset
	}
	loc := abbrevZone(a.Zone)
	if loc == nil {
		return 0
	}
	off, _ := a.AtUTC(name, localToUTC(us, loc))
	return off
}

// tzAbbrevLimit bounds the search for a later period of a dynamic
// abbreviation: PostgreSQL searches only the zone file's explicit
// transitions, which end in 2037.
var tzAbbrevLimit = time.Date(2038, 1, 1, 0, 0, 0, 0, time.UTC)

// zoneAbbrevPeriod finds the zone period named name in effect at t, else
// the latest before it, else the earliest after it (before 2038), as
// PostgreSQL's pg_interpret_timezone_abbrev walks the zone's transitions.
func zoneAbbrevPeriod(t time.Time, name string) (int, bool, bool) {
	for p := t; ; {
		if n, off := p.Zone(); n == name {
			return off, p.IsDST(), true
		}
		start, _ := p.ZoneBounds()
		if start.IsZero() {
			break
		}
		p = start.Add(-time.Second)
	}
	for p := t; ; {
		_, end := p.ZoneBounds()
		if end.IsZero() || !end.Before(tzAbbrevLimit) {
			return 0, false, false
		}
		p = end
		if n, off := p.Zone(); n == name {
			return off, p.IsDST(), true
		}
	}
}

// abbrevZones caches the zones of dynamic abbreviations: loading one reads
// the zone database.
var abbrevZones sync.Map // zone name -> *time.Location

// abbrevZone returns the IANA zone name, or nil if the database lacks it.
func abbrevZone(name string) *time.Location {
	if l, ok := abbrevZones.Load(name); ok {
		return l.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	abbrevZones.Store(name, loc)
	return loc
}

// tzAbbrevs is PostgreSQL 15's Default abbreviation set, keyed in lower
// case: offsets in seconds east of UTC (the tz database's), D for
// daylight-saving time, or the IANA zone whose history defines a dynamic
// abbreviation.
var tzAbbrevs = map[string]TZAbbrev{
	"acdt":   {Offset: 37800, DST: true},
	"acsst":  {Offset: 37800, DST: true},
	"acst":   {Offset: 34200},
	"act":    {Offset: -18000},
	"acwst":  {Offset: 31500},
	"adt":    {Offset: -10800, DST: true},
	"aedt":   {Offset: 39600, DST: true},
	"aesst":  {Offset: 39600, DST: true},
	"aest":   {Offset: 36000},
	"aft":    {Offset: 16200},
	"akdt":   {Offset: -28800, DST: true},
	"akst":   {Offset: -32400},
	"almst":  {Offset: 25200, DST: true},
	"almt":   {Offset: 21600},
	"amst":   {Zone: "Asia/Yerevan"},
	"amt":    {Offset: -14400},
	"anast":  {Zone: "Asia/Anadyr"},
	"anat":   {Zone: "Asia/Anadyr"},
	"arst":   {Zone: "America/Argentina/Buenos_Aires"},
	"art":    {Zone: "America/Argentina/Buenos_Aires"},
	"ast":    {Offset: -14400},
	"awsst":  {Offset: 32400, DST: true},
	"awst":   {Offset: 28800},
	"azost":  {Offset: 0, DST: true},
	"azot":   {Offset: -3600},
	"azst":   {Zone: "Asia/Baku"},
	"azt":    {Zone: "Asia/Baku"},
	"bdst":   {Offset: 7200, DST: true},
	"bdt":    {Offset: 21600},
	"bnt":    {Offset: 28800},
	"bort":   {Offset: 28800},
	"bot":    {Offset: -14400},
	"bra":    {Offset: -10800},
	"brst":   {Offset: -7200, DST: true},
	"brt":    {Offset: -10800},
	"bst":    {Offset: 3600, DST: true},
	"btt":    {Offset: 21600},
	"cadt":   {Offset: 37800, DST: true},
	"cast":   {Offset: 34200},
	"cct":    {Offset: 28800},
	"cdt":    {Offset: -18000, DST: true},
	"cest":   {Offset: 7200, DST: true},
	"cet":    {Offset: 3600},
	"cetdst": {Offset: 7200, DST: true},
	"chadt":  {Offset: 49500, DST: true},
	"chast":  {Offset: 45900},
	"chut":   {Offset: 36000},
	"ckt":    {Zone: "Pacific/Rarotonga"},
	"clst":   {Offset: -10800, DST: true},
	"clt":    {Zone: "America/Santiago"},
	"cot":    {Offset: -18000},
	"cst":    {Offset: -21600},
	"cxt":    {Offset: 25200},
	"davt":   {Zone: "Antarctica/Davis"},
	"ddut":   {Offset: 36000},
	"easst":  {Zone: "Pacific/Easter"},
	"east":   {Zone: "Pacific/Easter"},
	"eat":    {Offset: 10800},
	"edt":    {Offset: -14400, DST: true},
	"eest":   {Offset: 10800, DST: true},
	"eet":    {Offset: 7200},
	"eetdst": {Offset: 10800, DST: true},
	"egst":   {Offset: 0, DST: true},
	"egt":    {Offset: -3600},
	"est":    {Offset: -18000},
	"fet":    {Offset: 10800},
	"fjst":   {Offset: 46800, DST: true},
	"fjt":    {Offset: 43200},
	"fkst":   {Zone: "Atlantic/Stanley"},
	"fkt":    {Zone: "Atlantic/Stanley"},
	"fnst":   {Offset: -3600, DST: true},
	"fnt":    {Offset: -7200},
	"galt":   {Offset: -21600},
	"gamt":   {Offset: -32400},
	"gest":   {Zone: "Asia/Tbilisi"},
	"get":    {Zone: "Asia/Tbilisi"},
	"gft":    {Offset: -10800},
	"gilt":   {Offset: 43200},
	"gmt":    {Offset: 0},
	"gyt":    {Zone: "America/Guyana"},
	"hkt":    {Offset: 28800},
	"hst":    {Offset: -36000},
	"ict":    {Offset: 25200},
	"idt":    {Offset: 10800, DST: true},
	"iot":    {Zone: "Indian/Chagos"},
	"irkst":  {Zone: "Asia/Irkutsk"},
	"irkt":   {Zone: "Asia/Irkutsk"},
	"irt":    {Offset: 12600},
	"ist":    {Offset: 7200},
	"jayt":   {Offset: 32400},
	"jst":    {Offset: 32400},
	"kdt":    {Offset: 36000, DST: true},
	"kgst":   {Offset: 21600, DST: true},
	"kgt":    {Zone: "Asia/Bishkek"},
	"kost":   {Zone: "Pacific/Kosrae"},
	"krast":  {Zone: "Asia/Krasnoyarsk"},
	"krat":   {Zone: "Asia/Krasnoyarsk"},
	"kst":    {Offset: 32400},
	"lhdt":   {Zone: "Australia/Lord_Howe"},
	"lhst":   {Offset: 37800},
	"ligt":   {Offset: 36000},
	"lint":   {Zone: "Pacific/Kiritimati"},
	"lkt":    {Zone: "Asia/Colombo"},
	"magst":  {Zone: "Asia/Magadan"},
	"magt":   {Zone: "Asia/Magadan"},
	"mart":   {Offset: -34200},
	"mawt":   {Zone: "Antarctica/Mawson"},
	"mdt":    {Offset: -21600, DST: true},
	"mest":   {Offset: 7200, DST: true},
	"mesz":   {Offset: 7200, DST: true},
	"met":    {Offset: 3600},
	"metdst": {Offset: 7200, DST: true},
	"mez":    {Offset: 3600},
	"mht":    {Offset: 43200},
	"mmt":    {Offset: 23400},
	"mpt":    {Offset: 36000},
	"msd":    {Offset: 14400, DST: true},
	"msk":    {Zone: "Europe/Moscow"},
	"mst":    {Offset: -25200},
	"must":   {Offset: 18000, DST: true},
	"mut":    {Offset: 14400},
	"mvt":    {Offset: 18000},
	"myt":    {Offset: 28800},
	"ndt":    {Offset: -9000, DST: true},
	"nft":    {Offset: -12600},
	"novst":  {Zone: "Asia/Novosibirsk"},
	"novt":   {Zone: "Asia/Novosibirsk"},
	"npt":    {Offset: 20700},
	"nst":    {Offset: -12600},
	"nut":    {Zone: "Pacific/Niue"},
	"nzdt":   {Offset: 46800, DST: true},
	"nzst":   {Offset: 43200},
	"nzt":    {Offset: 43200},
	"omsst":  {Zone: "Asia/Omsk"},
	"omst":   {Zone: "Asia/Omsk"},
	"pdt":    {Offset: -25200, DST: true},
	"pet":    {Offset: -18000},
	"petst":  {Zone: "Asia/Kamchatka"},
	"pett":   {Zone: "Asia/Kamchatka"},
	"pgt":    {Offset: 36000},
	"pht":    {Offset: 28800},
	"pkst":   {Offset: 21600, DST: true},
	"pkt":    {Offset: 18000},
	"pmdt":   {Offset: -7200, DST: true},
	"pmst":   {Offset: -10800},
	"pont":   {Offset: 39600},
	"pst":    {Offset: -28800},
	"pwt":    {Offset: 32400},
	"pyst":   {Offset: -10800, DST: true},
	"pyt":    {Zone: "America/Asuncion"},
	"ret":    {Offset: 14400},
	"sadt":   {Offset: 37800, DST: true},
	"sast":   {Offset: 7200},
	"sct":    {Offset: 14400},
	"sgt":    {Zone: "Asia/Singapore"},
	"taht":   {Offset: -36000},
	"tft":    {Offset: 18000},
	"tjt":    {Offset: 18000},
	"tkt":    {Zone: "Pacific/Fakaofo"},
	"tmt":    {Zone: "Asia/Ashgabat"},
	"tot":    {Offset: 46800},
	"trut":   {Offset: 36000},
	"tvt":    {Offset: 43200},
	"uct":    {Offset: 0},
	"ulast":  {Offset: 32400, DST: true},
	"ulat":   {Zone: "Asia/Ulaanbaatar"},
	"ut":     {Offset: 0},
	"utc":    {Offset: 0},
	"uyst":   {Offset: -7200, DST: true},
	"uyt":    {Offset: -10800},
	"uzst":   {Offset: 21600, DST: true},
	"uzt":    {Offset: 18000},
	"vet":    {Zone: "America/Caracas"},
	"vlast":  {Zone: "Asia/Vladivostok"},
	"vlat":   {Zone: "Asia/Vladivostok"},
	"volt":   {Zone: "Europe/Volgograd"},
	"vut":    {Offset: 39600},
	"wadt":   {Offset: 28800, DST: true},
	"wakt":   {Offset: 43200},
	"wast":   {Offset: 25200},
	"wat":    {Offset: 3600},
	"wdt":    {Offset: 32400, DST: true},
	"wet":    {Offset: 0},
	"wetdst": {Offset: 3600, DST: true},
	"wft":    {Offset: 43200},
	"wgst":   {Offset: -7200, DST: true},
	"wgt":    {Offset: -10800},
	"xjt":    {Offset: 21600},
	"yakst":  {Zone: "Asia/Yakutsk"},
	"yakt":   {Zone: "Asia/Yakutsk"},
	"yapt":   {Offset: 36000},
	"yekst":  {Offset: 21600, DST: true},
	"yekt":   {Zone: "Asia/Yekaterinburg"},
	"z":      {Offset: 0},
	"zulu":   {Offset: 0},
}
