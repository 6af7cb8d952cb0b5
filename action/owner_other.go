//go:build !unix

package action

// ChownToWorkspaceOwner does nothing where container actions cannot run (they are Linux-only).
func ChownToWorkspaceOwner(workspace string, paths ...string) error { return nil }
