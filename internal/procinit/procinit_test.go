package procinit

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitMovesTokens(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "INPUT_GITHUB-TOKEN=ghs_1", "GITHUB_TOKEN=ghp_2", "GH_TOKEN=gho_3",
		"ACTIONS_RUNTIME_TOKEN=eyJ4", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=eyJ5", "ACTIONS_CACHE_URL=https://cache",
		"ACTIONS_SOMETHING_NEW_TOKEN=eyJ6", "OPENAI_API_KEY=sk-7", "INPUT_EVALS=evals"}
	rest, moved := split(env)
	wantRest := []string{"PATH=/bin", "ACTIONS_CACHE_URL=https://cache", "OPENAI_API_KEY=sk-7", "INPUT_EVALS=evals"}
	if diff := cmp.Diff(wantRest, rest); diff != "" {
		t.Errorf("rest (-want +got):\n%s", diff)
	}
	wantMoved := Secrets{"INPUT_GITHUB-TOKEN": "ghs_1", "GITHUB_TOKEN": "ghp_2", "GH_TOKEN": "gho_3",
		"ACTIONS_RUNTIME_TOKEN": "eyJ4", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ5", "ACTIONS_SOMETHING_NEW_TOKEN": "eyJ6"}
	if diff := cmp.Diff(wantMoved, moved); diff != "" {
		t.Errorf("moved (-want +got):\n%s", diff)
	}
}

func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	s := Secrets{"A": "x=y", "B": "", "INPUT_GITHUB-TOKEN": "line1\nline2"}
	got, err := decode(s.encode())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []string{"A=1", "=1\x00", "noequals\x00"} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q): no error", bad)
		}
	}
}

func TestEnvironAddsTokensBack(t *testing.T) {
	t.Parallel()
	s := Secrets{"INPUT_GITHUB-TOKEN": "ghs_1"}
	env := s.Environ([]string{"PATH=/bin", fdVar + "=3", "INPUT_GITHUB-TOKEN=stale"})
	slices.Sort(env)
	if diff := cmp.Diff([]string{"INPUT_GITHUB-TOKEN=ghs_1", "PATH=/bin"}, env); diff != "" {
		t.Error(diff)
	}
	get := s.Getenv(func(name string) string { return "env:" + name })
	if get("INPUT_GITHUB-TOKEN") != "ghs_1" || get("PATH") != "env:PATH" || get(fdVar) != "" {
		t.Errorf("Getenv: %q %q %q", get("INPUT_GITHUB-TOKEN"), get("PATH"), get(fdVar))
	}
	var none Secrets
	if got := none.Environ([]string{"PATH=/bin"}); !slices.Equal(got, []string{"PATH=/bin"}) {
		t.Errorf("nil secrets: %q", got)
	}
}
