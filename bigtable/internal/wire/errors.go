package wire

import (
	"errors"
	"fmt"
)

// Sentinel errors: every error of this package wraps one of them, so a
// server can choose its status code with errors.Is.
var (
	// ErrInvalid: a message that Cloud Bigtable rejects too
	// (InvalidArgument).
	ErrInvalid = errors.New("wire: invalid request")
	// ErrUnimplemented: a valid message the store cannot honour exactly
	// (Unimplemented).
	ErrUnimplemented = errors.New("wire: not supported by this server")
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func unimplementedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnimplemented, fmt.Sprintf(format, args...))
}
