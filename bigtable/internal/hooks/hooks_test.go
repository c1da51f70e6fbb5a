package hooks_test

import (
	"testing"

	_ "github.com/webtable/webtable/bigtable" // registers its functions
	"github.com/webtable/webtable/bigtable/internal/hooks"
)

// TestRegisterTwicePanics: package bigtable has registered its functions
// at init; a second registration is a programming error and panics rather
// than silently replacing them.
func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second Register did not panic")
		}
	}()
	hooks.Register(hooks.Funcs{})
}
