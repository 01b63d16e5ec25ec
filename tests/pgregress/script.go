package pgregress

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Stmt is one statement of a regression script as psql would send it.
type Stmt struct {
	Line int    // the 1-based line on which the statement starts
	SQL  string // the statement, variables interpolated, without its semicolon
	// Copy is set for COPY ... FROM STDIN: the rows to send, either the
	// script's inline data or a data file named by COPY ... FROM '<file>'
	// (then SQL has been rewritten to read STDIN).
	Copy []byte
	// Err is set when the statement cannot be prepared (a missing data
	// file); it is then not run.
	Err error
}

// Script splits psql input into statements. Vars holds psql variables;
// Env answers \getenv.
type Script struct {
	Vars map[string]string
	Env  map[string]string

	stmts []Stmt
	buf   strings.Builder
	start int // line of the statement being collected (0: none yet)
	lex   lexState
	copy  *Stmt // a COPY FROM stdin collecting its inline data
}

// lexState is the scanner's position inside quotes, comments and
// parentheses; it persists across lines.
type lexState struct {
	quote   byte   // '\'', '"', or 0
	escape  bool   // inside an E'...' string, where backslash escapes
	dollar  string // the tag of an open dollar quote, including the $s
	comment int    // nesting depth of /* */ comments
	paren   int    // parenthesis depth
}

// normal reports whether the scanner is outside quotes and comments.
func (l *lexState) normal() bool { return l.quote == 0 && l.dollar == "" && l.comment == 0 }

// Split returns the statements of src.
func (s *Script) Split(src string) []Stmt {
	s.stmts = nil
	for i, line := range strings.Split(src, "\n") {
		s.line(i+1, line)
	}
	s.flush()
	return s.stmts
}

// line consumes one line of input.
func (s *Script) line(n int, line string) {
	if s.copy != nil {
		if strings.TrimRight(line, "\r") == `\.` {
			s.copy = nil
			return
		}
		s.copy.Copy = append(s.copy.Copy, line+"\n"...)
		return
	}
	if s.lex.normal() && strings.TrimSpace(s.buf.String()) == "" && strings.HasPrefix(strings.TrimSpace(line), `\`) {
		s.meta(strings.TrimSpace(line))
		return
	}
	s.scan(n, line)
	if s.start != 0 {
		s.buf.WriteByte('\n')
	}
}

// scan runs the lexer over one line, emitting statements at semicolons.
func (s *Script) scan(n int, line string) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if s.start == 0 && c != ' ' && c != '\t' && c != '\r' {
			s.start = n
		}
		l := &s.lex
		switch {
		case l.comment > 0:
			s.buf.WriteByte(c)
			if c == '*' && i+1 < len(line) && line[i+1] == '/' {
				s.buf.WriteByte('/')
				i++
				l.comment--
			} else if c == '/' && i+1 < len(line) && line[i+1] == '*' {
				s.buf.WriteByte('*')
				i++
				l.comment++
			}
		case l.dollar != "":
			if strings.HasPrefix(line[i:], l.dollar) {
				s.buf.WriteString(l.dollar)
				i += len(l.dollar) - 1
				l.dollar = ""
			} else {
				s.buf.WriteByte(c)
			}
		case l.quote != 0:
			s.buf.WriteByte(c)
			switch {
			case l.escape && c == '\\' && i+1 < len(line):
				s.buf.WriteByte(line[i+1])
				i++
			case c == l.quote && i+1 < len(line) && line[i+1] == l.quote:
				s.buf.WriteByte(c)
				i++
			case c == l.quote:
				l.quote, l.escape = 0, false
			}
		default:
			i = s.normalChar(line, i)
			if i < 0 {
				return
			}
		}
	}
}

// normalChar handles line[i] outside quotes and comments and returns the
// index of the last byte consumed, or -1 when the rest of the line is
// consumed.
func (s *Script) normalChar(line string, i int) int {
	l := &s.lex
	c := line[i]
	rest := line[i:]
	switch {
	case strings.HasPrefix(rest, "--"):
		if s.start != 0 && strings.TrimSpace(s.buf.String()) == "" {
			s.start = 0 // a comment does not start a statement
		}
		return -1
	case strings.HasPrefix(rest, "/*"):
		s.buf.WriteString("/*")
		l.comment++
		return i + 1
	case c == '\'' || c == '"':
		l.quote = c
		l.escape = c == '\'' && i > 0 && (line[i-1] == 'E' || line[i-1] == 'e') && (i < 2 || !identChar(line[i-2]))
	case c == '$':
		if tag := dollarTag(line, i); tag != "" {
			l.dollar = tag
			s.buf.WriteString(tag)
			return i + len(tag) - 1
		}
	case c == '(':
		l.paren++
	case c == ')':
		l.paren = max(l.paren-1, 0)
	case c == ':':
		if j, ok := s.interpolate(line, i); ok {
			return j
		}
	case c == ';' && l.paren == 0:
		s.flush()
		return i
	case c == '\\':
		s.midMeta(strings.TrimSpace(rest))
		return -1
	}
	s.buf.WriteByte(c)
	return i
}

// identChar reports whether c can continue an identifier.
func identChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// dollarTag returns the dollar-quote opener at line[i] ("$$", "$tag$"),
// or "" if there is none ($1 parameters, identifiers containing $).
func dollarTag(line string, i int) string {
	if i > 0 && identChar(line[i-1]) {
		return ""
	}
	j := i + 1
	for j < len(line) && identChar(line[j]) {
		j++
	}
	if j >= len(line) || line[j] != '$' || (j > i+1 && line[i+1] >= '0' && line[i+1] <= '9') {
		return ""
	}
	return line[i : j+1]
}

// interpolate substitutes :name, :'name' or :"name" at line[i] when name
// is a defined variable, returning the index of the last byte consumed.
func (s *Script) interpolate(line string, i int) (int, bool) {
	if i+1 < len(line) && line[i+1] == ':' {
		s.buf.WriteString("::")
		return i + 1, true
	}
	quote := byte(0)
	j := i + 1
	if j < len(line) && (line[j] == '\'' || line[j] == '"') {
		quote = line[j]
		j++
	}
	k := j
	for k < len(line) && identChar(line[k]) {
		k++
	}
	v, ok := s.Vars[line[j:k]]
	if !ok || k == j {
		return 0, false
	}
	switch {
	case quote == 0:
		s.buf.WriteString(v)
		return k - 1, true
	case k < len(line) && line[k] == quote:
		q := string(quote)
		s.buf.WriteString(q + strings.ReplaceAll(v, q, q+q) + q)
		return k, true
	}
	return 0, false
}

// copyStdin matches COPY ... FROM STDIN; copyFile matches COPY ... FROM
// '<file>'.
var (
	copyStdin = regexp.MustCompile(`(?is)^\s*copy\b.*\bfrom\s+stdin\b`)
	copyFile  = regexp.MustCompile(`(?is)^(\s*copy\s+.+?\s+from\s+)'([^']*)'(.*)$`)
)

// flush ends the statement being collected.
func (s *Script) flush() {
	sql := strings.TrimSpace(s.buf.String())
	s.buf.Reset()
	start := s.start
	s.start, s.lex.paren = 0, 0
	if sql == "" {
		return
	}
	st := Stmt{Line: start, SQL: sql}
	if m := copyFile.FindStringSubmatch(sql); m != nil {
		st.SQL = m[1] + "STDIN" + m[3]
		data, err := os.ReadFile(m[2])
		st.Copy, st.Err = data, err
		if data == nil && err == nil {
			st.Copy = []byte{}
		}
	}
	s.stmts = append(s.stmts, st)
	if copyStdin.MatchString(sql) && st.Copy == nil {
		s.stmts[len(s.stmts)-1].Copy = []byte{}
		s.copy = &s.stmts[len(s.stmts)-1]
	}
}

// midMeta handles a meta-command that ends a statement line: \g and \gx
// send the statement; the others (\gset, \gexec, \gdesc, \crosstabview,
// ...) need psql itself, so the statement is dropped.
func (s *Script) midMeta(cmd string) {
	name, _, _ := strings.Cut(cmd, " ")
	if name == `\g` || name == `\gx` || name == `\g;` {
		s.flush()
		return
	}
	s.buf.Reset()
	s.start, s.lex.paren = 0, 0
}

// meta runs a meta-command line: \set and \getenv define variables;
// anything else (\d, \pset, \sv, ...) is skipped.
func (s *Script) meta(line string) {
	args := metaArgs(line, s.Vars)
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case `\set`:
		if len(args) >= 2 {
			s.Vars[args[1]] = strings.Join(args[2:], "")
		}
	case `\getenv`:
		if len(args) == 3 {
			if v, ok := s.Env[args[2]]; ok {
				s.Vars[args[1]] = v
			}
		}
	}
}

// metaArgs splits a meta-command line into its words: 'quoted' words lose
// their quotes, :name and :'name' words are replaced by the variable's
// value.
func metaArgs(line string, vars map[string]string) []string {
	var args []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		var w string
		switch {
		case line[0] == '\'':
			end := strings.IndexByte(line[1:], '\'')
			if end < 0 {
				end = len(line) - 1
			}
			w, line = line[1:end+1], line[min(end+2, len(line)):]
		case strings.HasPrefix(line, ":'"):
			end := strings.IndexByte(line[2:], '\'')
			if end < 0 {
				end = len(line) - 2
			}
			w, line = vars[line[2:end+2]], line[min(end+3, len(line)):]
		default:
			end := strings.IndexAny(line, " \t")
			if end < 0 {
				end = len(line)
			}
			w, line = line[:end], line[end:]
			if strings.HasPrefix(w, ":") {
				w = vars[w[1:]]
			}
		}
		args = append(args, w)
	}
	return args
}

// String prints a statement for reports: its line and first 300 bytes.
func (st Stmt) String() string {
	sql := st.SQL
	if len(sql) > 300 {
		sql = sql[:300] + "..."
	}
	return fmt.Sprintf("line %d: %s", st.Line, sql)
}
