package types

import "time"

func AppendBinary(buf []byte, d Datum, t T) ([]byte, error) { return buf, nil }
func ParseBinary(b []byte, t T) (Datum, error)              { return Null, nil }
func DateTrunc(unit string, ts int64, loc *time.Location) (int64, error) { return 0, nil }
func Extract(field string, d Datum, t T, loc *time.Location) (Datum, error) { return Null, nil }
