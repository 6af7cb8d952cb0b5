package providers

import (
	"time"

	"github.com/agentv/action/targets"
)

// DryRun returns a mock standing in for t (`--dry-run`): agent requests get
// MockAnswer and judge requests (those with a SystemPrompt) a valid verdict of score 1, so
// the whole pipeline, code judges included, runs without a network. Each request waits
// delay, or a random time in [delayMin, delayMax] when delayMax > 0.
func DryRun(t *targets.Target, delay, delayMin, delayMax time.Duration) Provider {
	if delayMax < delayMin {
		delayMin, delayMax = delayMax, delayMin
	}
	return &mockProvider{target: t, response: MockAnswer, delay: delay, delayMin: max(delayMin, 0), delayMax: delayMax, judge: true}
}
