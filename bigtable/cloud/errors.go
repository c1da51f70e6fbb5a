package cloud

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/webtable/webtable/bigtable"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// wrapErr turns an error of the Cloud client into one that also matches
// package bigtable's sentinels where they correspond, so callers test both
// stores with errors.Is alike. The gRPC status stays in the chain
// (status.Code still works on the result). what says what failed, for
// example `apply to row "aaa" of table "t"`.
func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if s := sentinel(err); s != nil {
		return fmt.Errorf("cloud: %s: %w: %w", what, s, err)
	}
	return fmt.Errorf("cloud: %s: %w", what, err)
}

// sentinel returns the bigtable sentinel (or context error) that err
// stands for, or nil.
func sentinel(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil // already matches
	}
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	msg := strings.ToLower(st.Message())
	switch {
	case st.Code() == codes.Canceled:
		return context.Canceled
	case st.Code() == codes.DeadlineExceeded:
		return context.DeadlineExceeded
	// NB: the emulator reports an unknown family as a bare error (code
	// Unknown, "unknown family"), Cloud Bigtable as NotFound or
	// InvalidArgument naming the column family; test the words first.
	case strings.Contains(msg, "family") &&
		(strings.Contains(msg, "unknown") || strings.Contains(msg, "not found") ||
			strings.Contains(msg, "no such") || strings.Contains(msg, "does not exist")):
		return bigtable.ErrUnknownFamily
	case st.Code() == codes.NotFound:
		return bigtable.ErrNotFound
	case st.Code() == codes.AlreadyExists:
		return bigtable.ErrExists
	case strings.Contains(msg, "64-bit") || strings.Contains(msg, "64 bit"):
		return bigtable.ErrInvalidIncrement
	case st.Code() == codes.InvalidArgument && strings.Contains(msg, "filter"):
		return bigtable.ErrInvalidFilter
	case strings.Contains(msg, "timestamp"):
		return bigtable.ErrInvalidTimestamp
	}
	return nil
}
