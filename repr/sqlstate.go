package repr

import (
	"errors"
	"fmt"
)

// Error is a user error with a SQLSTATE.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int32 // 1-based character offset into the statement; 0 if none
	// Unsupported marks a construct Eddy lacks (Unsupported), as opposed
	// to an error PostgreSQL raises too: a PL/pgSQL exception handler
	// does not catch it, since PostgreSQL would have run the construct.
	Unsupported bool
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// ErrorKind is a named kind of user error: a SQLSTATE and a message format.
type ErrorKind struct {
	Code   string
	Format string
}

// New returns an error of kind k with the message formatted from args.
func (k ErrorKind) New(args ...any) *Error {
	return &Error{Code: k.Code, Message: fmt.Sprintf(k.Format, args...)}
}

// Is reports whether err is (or wraps) an Error of kind k's code.
func (k ErrorKind) Is(err error) bool { return ErrorCode(err) == k.Code }

// Errorf returns an error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithPosition returns a copy of e with the position set.
func (e *Error) WithPosition(pos int32) *Error {
	c := *e
	c.Position = pos
	return &c
}

// WithDetail returns a copy of e with the detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	c := *e
	c.Detail = fmt.Sprintf(format, args...)
	return &c
}

// WithHint returns a copy of e with the hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, args...)
	return &c
}

// ErrorCode returns the SQLSTATE of err: its own if it wraps an *Error, else
// XX000 (internal error).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorFrom returns err as an *Error, wrapping a non-user error as XX000.
func ErrorFrom(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// SQLSTATE codes used by Eddy.
const (
	CodeInternal             = "XX000"
	CodeSyntax               = "42601"
	CodeUndefinedTable       = "42P01"
	CodeUndefinedColumn      = "42703"
	CodeUndefinedFunction    = "42883"
	CodeUndefinedObject      = "42704"
	CodeAmbiguousColumn      = "42702"
	CodeDatatypeMismatch     = "42804"
	CodeGrouping             = "42803"
	CodeDuplicateTable       = "42P07"
	CodeDuplicateObject      = "42710"
	CodeDuplicateColumn      = "42701"
	CodeInvalidText          = "22P02"
	CodeDivisionByZero       = "22012"
	CodeNumericOutOfRange    = "22003"
	CodeStringTooLong        = "22001"
	CodeDatetimeFormat       = "22007"
	CodeDatetimeOverflow     = "22008"
	CodeInvalidParameter     = "22023"
	CodeUniqueViolation      = "23505"
	CodeNotNullViolation     = "23502"
	CodeFeatureNotSupported  = "0A000"
	CodeDependentObjects     = "2BP01"
	CodeWrongObjectType      = "42809"
	CodeInFailedTransaction  = "25P02"
	CodeActiveTransaction    = "25001"
	CodeNoActiveTransaction  = "25P01"
	CodeSerializationFailure = "40001"
	CodeQueryCanceled        = "57014"
	CodeProtocolViolation    = "08P01"
	CodeUndefinedParameter   = "42P02"
	CodeInvalidCursor        = "34000"
	CodeInvalidPreparedStmt  = "26000"
	CodeCardinalityViolation = "21000"
	CodeProgramLimitExceeded = "54000"
	CodeOutOfMemory          = "53200"
	CodeObjectInUse          = "55006"
	CodeUndefinedSetting     = "42704"
	CodeInvalidRegexp        = "2201B"
)

// Common kinds.
var (
	ErrUndefinedTable  = ErrorKind{CodeUndefinedTable, "relation %q does not exist"}
	ErrUndefinedColumn = ErrorKind{CodeUndefinedColumn, "column %q does not exist"}
	ErrDivisionByZero  = ErrorKind{CodeDivisionByZero, "division by zero"}
	ErrUnsupported     = ErrorKind{CodeFeatureNotSupported, "%s is not supported"}
)

// Unsupported returns 0A000 naming the construct: "<what> is not supported".
func Unsupported(format string, args ...any) *Error {
	e := ErrUnsupported.New(fmt.Sprintf(format, args...))
	e.Unsupported = true
	return e
}
