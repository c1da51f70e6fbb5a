package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// codeOf maps the store's and the translation's errors onto the status
// codes Cloud Bigtable answers with, so that its clients (and
// bigtable/cloud, which maps them back) see the same conditions.
func codeOf(err error) codes.Code {
	switch {
	case errors.Is(err, wire.ErrInvalid):
		return codes.InvalidArgument
	case errors.Is(err, wire.ErrUnimplemented):
		return codes.Unimplemented
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, bigtable.ErrNotFound), errors.Is(err, bigtable.ErrUnknownFamily):
		return codes.NotFound
	case errors.Is(err, bigtable.ErrExists):
		return codes.AlreadyExists
	case errors.Is(err, bigtable.ErrInvalidName), errors.Is(err, bigtable.ErrInvalidRowKey),
		errors.Is(err, bigtable.ErrInvalidQualifier), errors.Is(err, bigtable.ErrInvalidTimestamp),
		errors.Is(err, bigtable.ErrValueTooLarge), errors.Is(err, bigtable.ErrInvalidMutation),
		errors.Is(err, bigtable.ErrInvalidFilter), errors.Is(err, bigtable.ErrInvalidIncrement):
		return codes.InvalidArgument
	case errors.Is(err, bigtable.ErrTooLarge):
		return codes.ResourceExhausted
	case errors.Is(err, bigtable.ErrReadOnly):
		return codes.FailedPrecondition
	case errors.Is(err, bigtable.ErrClosed):
		return codes.Unavailable
	}
	return codes.Internal
}

// toStatus turns err into a gRPC status error; nil stays nil and a status
// error passes unchanged.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codeOf(err), err.Error())
}

// statusf is a status error of code c.
func statusf(c codes.Code, format string, args ...any) error {
	return status.Error(c, fmt.Sprintf(format, args...))
}
