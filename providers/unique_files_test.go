package providers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUniqueFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in, want []string
	}{
		{"none", nil, []string{}},
		{"first of each, in order", []string{"/b", "/a", "/b", "/c", "/a"}, []string{"/b", "/a", "/c"}},
		{"spelling counts", []string{"/a", "/a/", "/A"}, []string{"/a", "/a/", "/A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, UniqueFiles(tt.in)); diff != "" {
				t.Errorf("UniqueFiles (-want +got):\n%s", diff)
			}
		})
	}
}
