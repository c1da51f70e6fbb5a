package crawler

import (
	"context"
	"errors"
	"net/url"

	"github.com/webtable/webtable/crawlstore"
)

// errKind classifies a fetch error.
func errKind(err error) crawlstore.ErrorKind {
	var re *redirectError
	var be *bodyError
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &re):
		return crawlstore.KindRedirect
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return crawlstore.KindTimeout
	case errors.As(err, &be):
		return crawlstore.KindBody
	}
	return crawlstore.KindNetwork
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
