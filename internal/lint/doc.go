// Package lint holds tests that check the shape of the repository itself:
// which package may import which (the layout in CONTRIBUTING.md), as a Go test,
// so that a wrong arrow fails CI instead of waiting for review, and that
// every relative link in the docs resolves.
package lint
