package action

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
)

// memStore is an in-memory CommentStore that records calls.
type memStore struct {
	comments  []*Comment
	calls     []string
	createErr []error // returned by successive Create calls, nil entries succeed
	findErr   error
}

var _ CommentStore = (*memStore)(nil)

func (m *memStore) Find(_ context.Context, _ int, marker string) (*Comment, error) {
	m.calls = append(m.calls, "find")
	if m.findErr != nil {
		return nil, m.findErr
	}
	for _, c := range m.comments {
		if strings.Contains(c.Body, marker) {
			return c, nil
		}
	}
	return nil, nil
}

func (m *memStore) Create(_ context.Context, _ int, body string) (*Comment, error) {
	m.calls = append(m.calls, "create")
	if len(m.createErr) > 0 {
		err := m.createErr[0]
		m.createErr = m.createErr[1:]
		if err != nil {
			return nil, err
		}
	}
	c := &Comment{ID: int64(len(m.comments) + 1), URL: "https://example/c/" + string(rune('0'+len(m.comments)+1)), Body: body}
	m.comments = append(m.comments, c)
	return c, nil
}

func (m *memStore) Update(_ context.Context, id int64, body string) (*Comment, error) {
	m.calls = append(m.calls, "update")
	for _, c := range m.comments {
		if c.ID == id {
			c.Body = body
			return c, nil
		}
	}
	return nil, &APIError{Op: "update", StatusCode: 404}
}

func TestUpsertModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode        CommentMode
		outcome     gate.Outcome
		warnings    bool
		existing    bool
		pr          int
		wantCalls   []string
		wantURL     bool
		wantComment bool
	}{
		{mode: CommentAuto, outcome: gate.Pass, pr: 7, wantCalls: []string{"find"}},
		{mode: CommentAuto, outcome: gate.Pass, warnings: true, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentAuto, outcome: gate.Fail, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentAuto, outcome: gate.Skipped, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentAuto, outcome: gate.Pass, existing: true, pr: 7, wantCalls: []string{"find", "update"}, wantURL: true, wantComment: true},
		{mode: CommentAlways, outcome: gate.Pass, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentOnFailure, outcome: gate.Pass, warnings: true, pr: 7, wantCalls: []string{"find"}},
		{mode: CommentOnFailure, outcome: gate.Error, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentOnFailure, outcome: gate.Invalid, pr: 7, wantCalls: []string{"find", "create"}, wantURL: true, wantComment: true},
		{mode: CommentOnFailure, outcome: gate.Pass, existing: true, pr: 7, wantCalls: []string{"find", "update"}, wantURL: true, wantComment: true},
		{mode: CommentOff, outcome: gate.Fail, existing: true, pr: 7, wantComment: true},
		{mode: CommentAlways, outcome: gate.Fail, pr: 0},
		{mode: CommentAuto, outcome: gate.Fail, existing: true, pr: 0, wantComment: true},
	}
	for _, tt := range tests {
		name := string(tt.mode) + "/" + string(tt.outcome)
		if tt.warnings {
			name += "/warnings"
		}
		if tt.existing {
			name += "/existing"
		}
		if tt.pr == 0 {
			name += "/no-pr"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &memStore{}
			if tt.existing {
				m.comments = []*Comment{{ID: 1, URL: "https://example/c/1", Body: testMarker + "\nold"}}
			}
			url, err := Upsert(t.Context(), m, tt.pr, testMarker, testMarker+"\nnew", tt.mode, tt.outcome, tt.warnings)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantCalls, m.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if (url != "") != tt.wantURL {
				t.Errorf("url = %q, want one: %v", url, tt.wantURL)
			}
			if (len(m.comments) == 1) != tt.wantComment || len(m.comments) > 1 {
				t.Errorf("%d comments, want a comment: %v", len(m.comments), tt.wantComment)
			}
		})
	}
}

func TestUpsertAddsMissingMarker(t *testing.T) {
	t.Parallel()
	m := &memStore{}
	if _, err := Upsert(t.Context(), m, 7, testMarker, "report without marker", CommentAlways, gate.Pass, false); err != nil {
		t.Fatal(err)
	}
	if got := m.comments[0].Body; got != testMarker+"\nreport without marker" {
		t.Errorf("body = %q", got)
	}
	// The next run finds it.
	if _, err := Upsert(t.Context(), m, 7, testMarker, "second", CommentAlways, gate.Pass, false); err != nil {
		t.Fatal(err)
	}
	if len(m.comments) != 1 {
		t.Errorf("%d comments, want 1", len(m.comments))
	}
}

func TestUpsertSkipsIdenticalBody(t *testing.T) {
	t.Parallel()
	m := &memStore{comments: []*Comment{{ID: 1, URL: "u", Body: testMarker + "\nsame"}}}
	url, err := Upsert(t.Context(), m, 7, testMarker, testMarker+"\nsame", CommentAlways, gate.Pass, false)
	if err != nil || url != "u" {
		t.Fatalf("Upsert = %q, %v", url, err)
	}
	if diff := cmp.Diff([]string{"find"}, m.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestUpsertErrors(t *testing.T) {
	t.Parallel()
	t.Run("too long", func(t *testing.T) {
		t.Parallel()
		m := &memStore{}
		_, err := Upsert(t.Context(), m, 7, testMarker, testMarker+strings.Repeat("é", MaxCommentChars), CommentAlways, gate.Fail, false)
		if !errors.Is(err, ErrCommentTooLong) {
			t.Errorf("err = %v, want ErrCommentTooLong", err)
		}
		if len(m.calls) != 0 {
			t.Errorf("calls = %v, want none", m.calls)
		}
	})
	t.Run("exactly the limit in characters", func(t *testing.T) {
		t.Parallel()
		m := &memStore{}
		body := testMarker + strings.Repeat("é", MaxCommentChars-len(testMarker))
		if _, err := Upsert(t.Context(), m, 7, testMarker, body, CommentAlways, gate.Fail, false); err != nil {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unknown mode", func(t *testing.T) {
		t.Parallel()
		if _, err := Upsert(t.Context(), &memStore{}, 7, testMarker, "x", "sometimes", gate.Fail, false); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("bad marker", func(t *testing.T) {
		t.Parallel()
		if _, err := Upsert(t.Context(), &memStore{}, 7, "<!-- x -->", "x", CommentAlways, gate.Fail, false); err == nil {
			t.Error("no error")
		}
	})
	t.Run("find fails", func(t *testing.T) {
		t.Parallel()
		m := &memStore{findErr: &APIError{Op: "list", StatusCode: 403, Message: "Resource not accessible by integration"}}
		_, err := Upsert(t.Context(), m, 7, testMarker, "x", CommentAlways, gate.Fail, false)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 403 {
			t.Errorf("err = %v, want the APIError", err)
		}
	})
	t.Run("temporary create failure retried once after looking again", func(t *testing.T) {
		t.Parallel()
		m := &memStore{createErr: []error{&APIError{Op: "create", StatusCode: 502}}}
		if _, err := Upsert(t.Context(), m, 7, testMarker, "x", CommentAlways, gate.Fail, false); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"find", "create", "find", "create"}, m.calls); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("permanent create failure not retried", func(t *testing.T) {
		t.Parallel()
		m := &memStore{createErr: []error{&APIError{Op: "create", StatusCode: 403}}}
		if _, err := Upsert(t.Context(), m, 7, testMarker, "x", CommentAlways, gate.Fail, false); err == nil {
			t.Fatal("no error")
		}
		if diff := cmp.Diff([]string{"find", "create"}, m.calls); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
}

func TestMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		workflow, job, key string
		want               string
	}{
		{"plain", "CI", "evals", "", "<!-- agentv-action:v1 workflow=CI job=evals key= -->"},
		{"spaces and slashes", "Evals / PR", "eval-suite", "node 24", "<!-- agentv-action:v1 workflow=Evals%20%2F%20PR job=eval%2Dsuite key=node%2024 -->"},
		{"comment close", "x-->", "<!--", "--><script>", "<!-- agentv-action:v1 workflow=x%2D%2D%3E job=%3C%21%2D%2D key=%2D%2D%3E%3Cscript%3E -->"},
		{"unicode", "évals", "j", "k\n", "<!-- agentv-action:v1 workflow=%C3%A9vals job=j key=k%0A -->"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Marker(tt.workflow, tt.job, tt.key); got != tt.want {
				t.Errorf("Marker = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzMarker(f *testing.F) {
	f.Add("CI", "evals", "")
	f.Add("a -->", "key=b", "c job=d")
	f.Add("a", "b", "c -->x")
	f.Fuzz(func(t *testing.T, workflow, job, key string) {
		m := Marker(workflow, job, key)
		inner := strings.TrimSuffix(strings.TrimPrefix(m, "<!--"), "-->")
		if strings.Contains(inner, "--") || strings.ContainsAny(inner, "<>\n\r") {
			t.Fatalf("marker %q can close or break the HTML comment", m)
		}
		if strings.Count(m, "=") != 3 {
			t.Fatalf("marker %q has forged fields", m)
		}
		// Different inputs never give markers where one contains the other.
		other := Marker(workflow, job, key+"x")
		if strings.Contains(other, m) || strings.Contains(m, other) {
			t.Fatalf("markers %q and %q overlap", m, other)
		}
	})
}

func TestEnvCommentMarker(t *testing.T) {
	t.Parallel()
	e := Env{Workflow: "Evals / PR", Job: "evals"}
	if got, want := e.CommentMarker("linux"), Marker("Evals / PR", "evals", "linux"); got != want {
		t.Errorf("CommentMarker = %q, want %q", got, want)
	}
}
