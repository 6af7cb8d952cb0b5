# One entry point for the usual tasks; CI runs .ci/run, which runs the same test command.
.PHONY: build test short vet bench fuzz update-golden container-e2e

build:
	go build -o agentv ./cmd/agentv

test:
	go test ./...

short:
	go test -short ./...

vet:
	gofmt -l $$(git ls-files '*.go')
	go vet ./...

# End-to-end benchmarks on generated suites (wall time and peak RSS), then Go benchmarks.
bench:
	bench/run.sh 5
	go test -run XXX -bench . -benchmem ./suite ./evaluators ./report ./runner ./providers

fuzz:
	go test -run XXX -fuzz FuzzLoadYAML -fuzztime 30s ./suite
	go test -run XXX -fuzz FuzzLoadJSONL -fuzztime 30s ./suite
	go test -run XXX -fuzz FuzzFirstObject -fuzztime 30s ./internal/jsonx
	go test -run XXX -fuzz FuzzRenderTemplate -fuzztime 30s ./providers
	go test -run XXX -fuzz FuzzParseVerdict -fuzztime 30s ./evaluators

update-golden:
	go test ./suite ./providers ./evaluators ./report ./action -update

# The Action in its real image under act (root; see scripts/container-e2e.sh).
container-e2e:
	scripts/container-e2e.sh
