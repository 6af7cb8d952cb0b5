package providers

import "path/filepath"

// EnvFiles lists the .env files a target of an eval file in evalDir may read variables from
// (nearest first; they need not exist), so a caller can tell which files a run reads.
func EnvFiles(evalDir, repoRoot string) []string {
	var out []string
	for _, d := range targetsAncestors(evalDir, repoRoot) {
		out = append(out, filepath.Join(d, ".env"))
	}
	return out
}
