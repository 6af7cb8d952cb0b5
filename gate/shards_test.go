package gate

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

func TestCheckShards(t *testing.T) {
	t.Parallel()
	sh := func(name string, i, n int, plan string) ShardFile {
		return ShardFile{Name: name, Shard: &results.RunShard{Index: i, Count: n, Plan: plan}}
	}
	whole := func(name string) ShardFile { return ShardFile{Name: name} }
	for _, tc := range []struct {
		name  string
		files []ShardFile
		want  []string // substrings of the one problem, or none
	}{
		{"whole runs", []ShardFile{whole("a"), whole("b")}, nil},
		{"every shard once", []ShardFile{sh("s3", 3, 3, "p"), sh("s1", 1, 3, "p"), sh("s2", 2, 3, "p")}, nil},
		{"missing", []ShardFile{sh("s1", 1, 4, "p"), sh("s3", 3, 4, "p")}, []string{"shards 2, 4 of 4 are missing"}},
		{"one missing", []ShardFile{sh("s1", 1, 2, "p")}, []string{"shard 2 of 2 is missing"}},
		{"duplicated", []ShardFile{sh("a", 1, 2, "p"), sh("b", 2, 2, "p"), sh("c", 2, 2, "p")}, []string{"shard 2 of 2 is in b, c"}},
		{"other plan", []ShardFile{sh("a", 1, 2, "p"), sh("b", 2, 2, "q")}, []string{"different plans", "a (2 shards, plan p)", "b (2 shards, plan q)"}},
		{"other count", []ShardFile{sh("a", 1, 2, "p"), sh("b", 2, 3, "p")}, []string{"different plans", "3 shards"}},
		{"killed shard", []ShardFile{sh("a", 1, 2, "p"), sh("b", 2, 2, "")}, []string{"b (2 shards, plan unknown"}},
		{"mixed", []ShardFile{sh("a", 1, 1, "p"), whole("w")}, []string{"w is not a shard", "a is"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := CheckShards(tc.files)
			if len(tc.want) == 0 {
				if len(got) > 0 {
					t.Fatalf("problems = %q, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("problems = %q, want one", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("problem %q does not say %q", got[0], w)
				}
			}
		})
	}
}
