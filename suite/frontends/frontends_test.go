package frontends_test

import (
	"slices"
	"testing"

	"github.com/agentv/action/suite"
	_ "github.com/agentv/action/suite/frontends"
)

// TestRegistered checks that importing frontends registers every dialect outside suite, and
// promptfoo's ahead of 5.x's (a promptfoo config would pass for a 5.x file).
func TestRegistered(t *testing.T) {
	t.Parallel()
	got := suite.FrontEnds()
	want := []string{suite.DialectPromptfoo, suite.Dialect5}
	if !slices.Equal(got, want) {
		t.Fatalf("front-ends %q, want %q in that order", got, want)
	}
}
