// Package fielderr is the error a library's configuration check returns
// for one bad field: the field is named as the configuration struct names it
// ("Repeat", "LinkBandwidth"), never by a command-line flag, so that the
// command line alone maps every such error to its flag (cmd/graphrun's
// flagOf) and the check itself lives, and is tested, beside the
// configuration it checks.
package fielderr

import (
	"errors"
	"fmt"
)

// Error is a bad value of the configuration field Field, Msg saying why.
type Error struct{ Field, Msg string }

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

// New returns the error of field, its message formatted as by fmt.Sprintf.
func New(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns err as the error of field (nil for a nil err): a parser's
// error about the field's value.
func Wrap(field string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Field: field, Msg: err.Error()}
}

// As returns the field error err holds, if any.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}

// Field is the field err names, or "" when err holds no field error (nil
// included).
func Field(err error) string {
	if fe, ok := As(err); ok {
		return fe.Field
	}
	return ""
}
