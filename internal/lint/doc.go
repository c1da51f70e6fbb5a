// Package lint holds tests that check the shape of the repository itself:
// which package may import which (the layout in DEVELOPERS.md), as a Go test
// so that a wrong arrow fails CI instead of waiting for review.
package lint
