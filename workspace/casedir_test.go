package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateCase: a test's own directory is empty (the shared workspace's files are not in
// it), sees the shared workspace's beforeAll result, and Remove deletes it and that link.
func TestCreateCase(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	opts := Options{Root: root, Env: []string{"PATH=" + os.Getenv("PATH")}}
	shared, err := os.MkdirTemp(root, "agentv-workspace-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "before-all.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &ExtensionState{ProviderContext: map[string]any{"k": "v"}}
	states.Store(shared, st)
	defer states.Delete(shared)

	a, err := CreateCase(context.Background(), shared, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateCase(context.Background(), shared, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == shared {
		t.Fatalf("test directories %q, %q, shared %q: want three different", a, b, shared)
	}
	if _, err := os.Stat(filepath.Join(a, "before-all.log")); !os.IsNotExist(err) {
		t.Errorf("the test's directory has the shared workspace's file (stat: %v)", err)
	}
	if got, ok := states.Load(a); !ok || got.(*ExtensionState) != st {
		t.Errorf("the test's directory does not see the beforeAll result: %v %v", got, ok)
	}
	if err := Remove(a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("Remove left %s (stat: %v)", a, err)
	}
	if _, ok := states.Load(a); ok {
		t.Error("Remove left the test directory's state")
	}
	_ = Remove(b)
}
