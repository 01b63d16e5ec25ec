package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// copyKind is a COPY data format.
type copyKind uint8

const (
	copyTextKind copyKind = iota
	copyCSVKind
	copyBinaryKind
)

// copyOptions are a COPY statement's WITH options after validation, with
// PostgreSQL 15's defaults filled in (ProcessCopyOptions): tab and \N for
// text, comma and the empty string for CSV, quote '"' and escape = quote.
// Invariants after parseCopyOptions: delim, quote and escape are single
// bytes; delim is never \r, \n or (outside CSV) a character the text
// format gives a meaning to; null contains neither \r nor \n nor delim.
type copyOptions struct {
	kind          copyKind
	delim         byte
	null          string
	header        bool
	quote, escape byte
	forceQuoteAll bool
	forceQuote    []string // FORCE_QUOTE columns (TO, CSV only)
	forceNotNull  []string // FORCE_NOT_NULL columns (FROM, CSV only)
	forceNull     []string // FORCE_NULL columns (FROM, CSV only)
	freeze        bool
}

// rawCopyOptions records which options a statement set, before defaults.
type rawCopyOptions struct {
	seen                          map[string]bool
	delim, null, quote, escape    *string
	forceQuote, forceNN, forceNul bool
}

// parseCopyOptions reads and validates a COPY's options as PostgreSQL 15
// does, in its order, with its SQLSTATEs and messages; src is the
// statement text, for error positions.
func parseCopyOptions(opts []*pg.Node, isFrom bool, src string) (copyOptions, error) {
	var o copyOptions
	raw := rawCopyOptions{seen: map[string]bool{}}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if err := o.setOption(d, &raw, isFrom, src); err != nil {
			return o, err
		}
	}
	return o, o.validate(&raw, isFrom)
}

// setOption applies one WITH option. Like PostgreSQL it reports the
// option's position (in src) for a repeated or unknown option or format.
func (o *copyOptions) setOption(d *pg.DefElem, raw *rawCopyOptions, isFrom bool, src string) error {
	at := func(err error) error { return withPosition(err, src, d.Location) }
	if raw.seen[d.Defname] {
		return at(repr.Errorf(repr.CodeSyntax, "conflicting or redundant options"))
	}
	raw.seen[d.Defname] = true
	var err error
	switch d.Defname {
	case "format":
		err = at(o.setFormat(defElemString(d)))
	case "freeze":
		o.freeze, err = defElemBool(d)
	case "delimiter":
		s := defElemString(d)
		raw.delim = &s
	case "null":
		s := defElemString(d)
		raw.null = &s
	case "header":
		err = o.setHeader(d, isFrom)
	case "quote":
		s := defElemString(d)
		raw.quote = &s
	case "escape":
		s := defElemString(d)
		raw.escape = &s
	case "force_quote":
		raw.forceQuote = true
		if d.Arg != nil && d.Arg.GetAStar() != nil {
			o.forceQuoteAll = true
		} else {
			o.forceQuote, err = defElemNames(d)
		}
	case "force_not_null":
		raw.forceNN = true
		o.forceNotNull, err = defElemNames(d)
	case "force_null":
		raw.forceNul = true
		o.forceNull, err = defElemNames(d)
	case "encoding":
		err = checkCopyEncoding(defElemString(d))
	default:
		err = at(repr.Errorf(repr.CodeSyntax, "option \"%s\" not recognized", d.Defname))
	}
	return err
}

// setFormat reads FORMAT.
func (o *copyOptions) setFormat(name string) error {
	switch name {
	case "text":
		o.kind = copyTextKind
	case "csv":
		o.kind = copyCSVKind
	case "binary":
		o.kind = copyBinaryKind
	default:
		return repr.Errorf(repr.CodeInvalidParameter, "COPY format \"%s\" not recognized", name)
	}
	return nil
}

// setHeader reads HEADER [boolean | MATCH]; MATCH is PostgreSQL 15's
// header check on input, which Eddy does not implement.
func (o *copyOptions) setHeader(d *pg.DefElem, isFrom bool) error {
	if s := d.Arg.GetString_(); s != nil && strings.EqualFold(s.Sval, "match") {
		if !isFrom {
			return repr.Errorf(repr.CodeFeatureNotSupported, "cannot use \"match\" with HEADER in COPY TO")
		}
		return repr.Unsupported("COPY HEADER MATCH")
	}
	var err error
	if o.header, err = defElemBool(d); err != nil {
		return repr.Errorf(repr.CodeSyntax, "%s requires a Boolean value or \"match\"", d.Defname)
	}
	return nil
}

// checkCopyEncoding accepts the one encoding Eddy speaks.
func checkCopyEncoding(name string) error {
	switch strings.ToLower(strings.ReplaceAll(name, "-", "")) {
	case "utf8", "unicode":
		return nil
	}
	return repr.Unsupported("COPY ENCODING %s (Eddy speaks only UTF8)", name)
}

// validate fills in the defaults and checks the combinations, in the order
// and with the messages of PostgreSQL 15's ProcessCopyOptions.
func (o *copyOptions) validate(raw *rawCopyOptions, isFrom bool) error {
	bin, csv := o.kind == copyBinaryKind, o.kind == copyCSVKind
	if bin && raw.delim != nil {
		return repr.Errorf(repr.CodeSyntax, "cannot specify DELIMITER in BINARY mode")
	}
	if bin && raw.null != nil {
		return repr.Errorf(repr.CodeSyntax, "cannot specify NULL in BINARY mode")
	}
	delim, null := "\t", `\N`
	if csv {
		delim, null = ",", ""
	}
	if raw.delim != nil {
		delim = *raw.delim
	}
	if raw.null != nil {
		null = *raw.null
	}
	quote, escape := `"`, ""
	if csv && raw.quote != nil {
		quote = *raw.quote
	}
	if csv && raw.escape != nil {
		escape = *raw.escape
	} else if csv {
		escape = quote
	}
	if len(delim) != 1 {
		return repr.Errorf(repr.CodeFeatureNotSupported, "COPY delimiter must be a single one-byte character")
	}
	if delim[0] == '\r' || delim[0] == '\n' {
		return repr.Errorf(repr.CodeInvalidParameter, "COPY delimiter cannot be newline or carriage return")
	}
	if strings.ContainsAny(null, "\r\n") {
		return repr.Errorf(repr.CodeInvalidParameter, "COPY null representation cannot use newline or carriage return")
	}
	if !csv && strings.Contains(`\.abcdefghijklmnopqrstuvwxyz0123456789`, delim) {
		return repr.Errorf(repr.CodeInvalidParameter, "COPY delimiter cannot be \"%s\"", delim)
	}
	if bin && o.header {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot specify HEADER in BINARY mode")
	}
	if err := o.validateCSV(raw, csv, isFrom, delim, quote, escape); err != nil {
		return err
	}
	if strings.Contains(null, delim) {
		return repr.Errorf(repr.CodeFeatureNotSupported, "COPY delimiter must not appear in the NULL specification")
	}
	if csv && strings.Contains(null, quote) {
		return repr.Errorf(repr.CodeFeatureNotSupported, "CSV quote character must not appear in the NULL specification")
	}
	o.delim, o.null, o.quote = delim[0], null, quote[0]
	if csv {
		o.escape = escape[0]
	}
	return nil
}

// validateCSV checks QUOTE, ESCAPE and the FORCE_* options.
func (o *copyOptions) validateCSV(raw *rawCopyOptions, csv, isFrom bool, delim, quote, escape string) error {
	unsupported := func(format string) error {
		return repr.Errorf(repr.CodeFeatureNotSupported, "%s", format)
	}
	switch {
	case !csv && raw.quote != nil:
		return unsupported("COPY quote available only in CSV mode")
	case csv && len(quote) != 1:
		return unsupported("COPY quote must be a single one-byte character")
	case csv && delim == quote:
		return repr.Errorf(repr.CodeInvalidParameter, "COPY delimiter and quote must be different")
	case !csv && raw.escape != nil:
		return unsupported("COPY escape available only in CSV mode")
	case csv && len(escape) != 1:
		return unsupported("COPY escape must be a single one-byte character")
	case !csv && raw.forceQuote:
		return unsupported("COPY force quote available only in CSV mode")
	case raw.forceQuote && isFrom:
		return unsupported("COPY force quote only available using COPY TO")
	case !csv && raw.forceNN:
		return unsupported("COPY force not null available only in CSV mode")
	case raw.forceNN && !isFrom:
		return unsupported("COPY force not null only available using COPY FROM")
	case !csv && raw.forceNul:
		return unsupported("COPY force null available only in CSV mode")
	case raw.forceNul && !isFrom:
		return unsupported("COPY force null only available using COPY FROM")
	}
	return nil
}

// defElemBool reads a Boolean option as PostgreSQL's defGetBoolean does:
// no argument is true; 0/1, true/false, on/off, yes/no are accepted.
func defElemBool(d *pg.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	if i := d.Arg.GetInteger(); i != nil {
		switch i.Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	} else {
		switch strings.ToLower(defElemString(d)) {
		case "true", "on", "yes":
			return true, nil
		case "false", "off", "no":
			return false, nil
		}
	}
	return false, repr.Errorf(repr.CodeSyntax, "%s requires a Boolean value", d.Defname)
}

// defElemNames reads a column-name list option.
func defElemNames(d *pg.DefElem) ([]string, error) {
	l := d.Arg.GetList()
	if l == nil {
		return nil, repr.Errorf(repr.CodeSyntax, "argument to option \"%s\" must be a list of column names", d.Defname)
	}
	names := make([]string, 0, len(l.Items))
	for _, it := range l.Items {
		names = append(names, it.GetString_().GetSval())
	}
	return names, nil
}
