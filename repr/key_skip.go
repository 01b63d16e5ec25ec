package repr

// KeyDelimits reports whether SkipKeyDatum can find the end of a key
// encoding (AppendKey) of a datum of family f: the fixed-width integer
// families and the escaped byte strings.
func KeyDelimits(f Family) bool {
	switch f {
	case FamBool, FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ,
		FamText, FamBytea, FamJSONB, FamUUID, FamJSON, FamEnum, FamJSONPath:
		return true
	}
	return false
}

// SkipKeyDatum returns key past the key encoding of its first datum, of
// family f or NULL. It fails when f is not KeyDelimits or the encoding is
// malformed; it never panics.
func SkipKeyDatum(key []byte, f Family) ([]byte, error) {
	if !KeyDelimits(f) {
		return nil, errCorrupt
	}
	_, rest, err := decodeKeyDatum(key, f, 0)
	return rest, err
}
