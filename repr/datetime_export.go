package repr

import "time"

// LocalToUTC returns the UTC instant (microseconds since 2000-01-01) of the
// wall-clock time us in loc, resolving repeated and skipped wall times as
// PostgreSQL's DetermineTimeZoneOffset does (see localToUTC). Infinite
// timestamps map to themselves.
func LocalToUTC(us int64, loc *time.Location) int64 { return localToUTC(us, loc) }

// UTCToLocal returns the wall-clock time in loc of the UTC instant us.
// Infinite timestamps map to themselves.
func UTCToLocal(us int64, loc *time.Location) int64 { return utcToLocal(us, loc) }

// ValidTimestamp reports whether us is a finite timestamp within
// PostgreSQL's range (4714-11-24 BC to 294276 AD).
func ValidTimestamp(us int64) bool { return us >= minTimestamp && us <= maxTimestamp }

// DaysFromCivil returns the days since 2000-01-01 of the proleptic
// Gregorian date y-m-d (year 0 is 1 BC).
func DaysFromCivil(y, m, d int64) int64 { return daysFromCivil(y, m, d) }

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(days int64) (y, m, d int64) { return civilFromDays(days) }
