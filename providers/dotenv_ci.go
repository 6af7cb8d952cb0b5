package providers

import (
	"os"
	"path/filepath"
)

// DotenvFiles lists the .env files NewEnv would read for an eval file in evalDir, nearest
// first. Under GitHub Actions they are not read (secrets come from the workflow), and the
// run says so for each one present.
func DotenvFiles(evalDir, repoRoot string) []string {
	var out []string
	for _, d := range targetsAncestors(evalDir, repoRoot) {
		p := filepath.Join(d, ".env")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}
