//go:build !unix

package evaluators

import "time"

// selfCPU reports zero where getrusage is missing (Windows): the CPU overhead metric
// then reads 0 and only the wall-clock metrics mean anything.
func selfCPU() time.Duration { return 0 }
