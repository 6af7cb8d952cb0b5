package gate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
)

// ShardFile is a results file to merge and the shard its run was (nil: a whole run).
type ShardFile struct {
	Name  string
	Shard *results.RunShard
}

// CheckShards returns why results files cannot be merged into one report of a split run:
// shards of different plans, a shard missing or given twice, or whole runs mixed with shards.
// Files of whole runs alone merge freely.
func CheckShards(files []ShardFile) []string {
	var sharded, whole []string
	for _, f := range files {
		if f.Shard != nil {
			sharded = append(sharded, f.Name)
		} else {
			whole = append(whole, f.Name)
		}
	}
	if len(sharded) == 0 {
		return nil
	}
	var problems []string
	if len(whole) > 0 {
		problems = append(problems, fmt.Sprintf("%s %s not a shard of a split run, but %s %s: a merged report is either all shards of one plan or whole runs",
			names(whole), textfmt.Plural(len(whole), "is", "are"),
			names(sharded), textfmt.Plural(len(sharded), "is", "are")))

	}
	// Shards of one plan share the shard count and the plan identity.
	type planKey struct {
		count int
		plan  string
	}
	byPlan := map[planKey][]ShardFile{}
	var plans []planKey
	for _, f := range files {
		if f.Shard == nil {
			continue
		}
		k := planKey{f.Shard.Count, f.Shard.Plan}
		if _, ok := byPlan[k]; !ok {
			plans = append(plans, k)
		}
		byPlan[k] = append(byPlan[k], f)
	}
	if len(plans) > 1 {
		var parts []string
		for _, k := range plans {
			var ns []string
			for _, f := range byPlan[k] {
				ns = append(ns, f.Name)
			}
			plan := cmp.Or(k.plan, "unknown (the run did not finish)")
			parts = append(parts, fmt.Sprintf("%s (%d shards, plan %s)", names(ns), k.count, plan))
		}
		return append(problems, "the results files are shards of different plans (other cases selected, or another shard count): "+strings.Join(parts, "; "))
	}
	k := plans[0]
	seen := map[int][]string{}
	for _, f := range byPlan[k] {
		seen[f.Shard.Index] = append(seen[f.Shard.Index], f.Name)
	}
	var dup, missing []string
	for _, i := range slices.Sorted(maps.Keys(seen)) {
		if len(seen[i]) > 1 {
			dup = append(dup, fmt.Sprintf("shard %d of %d is in %s", i, k.count, names(seen[i])))
		}
	}
	for i := 1; i <= k.count; i++ {
		if seen[i] == nil {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(dup) > 0 {
		problems = append(problems, "a shard is given more than once: "+strings.Join(dup, "; "))
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], "…")
		}
		problems = append(problems, fmt.Sprintf("%s %s of %d %s missing: the merged report would leave %s cases out",
			textfmt.Plural(len(missing), "shard", "shards"), strings.Join(missing, ", "), k.count,
			textfmt.Plural(len(missing), "is", "are"), textfmt.Plural(len(missing), "its", "their")))
	}
	return problems
}

func names(ns []string) string {
	if len(ns) > 5 {
		return strings.Join(ns[:5], ", ") + fmt.Sprintf(" and %d more", len(ns)-5)
	}
	return strings.Join(ns, ", ")
}
