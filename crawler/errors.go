package crawler

import (
	"context"
	"errors"
	"net/url"
)

// errKind classifies a fetch error.
func errKind(err error) ErrorKind {
	var re *redirectError
	var be *bodyError
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &re):
		return KindRedirect
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return KindTimeout
	case errors.As(err, &be):
		return KindBody
	}
	return KindNetwork
}

// errText is the recorded text of a fetch error.
func errText(err error) string {
	if err == nil {
		return "no response"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
