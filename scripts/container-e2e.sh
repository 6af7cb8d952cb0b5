#!/usr/bin/env bash
# Optional developer check (no test needs it; a clone from GitHub lacks ../shared): runs the Action end to end in its real image, the way GitHub's runner would, with the
# shared tool ../shared/tools/container-e2e.sh (BuildKit build of the Dockerfile, nektos/act,
# a private Docker daemon) and a loopback fake of GitHub's comment API
# (action/actiontest/fakegithub). Then checks what the Action produced.
#
# Nine passes (ten runs of the shared tool) against one fake API: passes 1 and 2 check the
# sticky comment across runs, pass 8 that the merged report's comment is one more:
#   1. run:    the self-test step of .github/workflows/self-test.yml on examples/quickstart
#              (4 cases, one fails on purpose, max-failures 1 => pass) plus comment: always.
#              Checks outputs.json, the step summary, the annotations, the files in
#              agentv-results/ and the comment the fake received (one POST).
#   2. report: mode: report on pass 1's results.jsonl, same comment-key. Checks the outputs
#              and that the same comment was edited in place (PATCH, still one comment).
#   3. dry-run: the self-test's dry-run job (mocks, comment: off). Checks that the step's
#              exit status agrees with the outcome, the outputs and that the API was untouched.
#   4. runtimes: scripts/e2e-runtimes (as working-directory): TypeScript judges under bun and tsx, a JavaScript judge
#              under node, a Python judge and a TypeScript prompt template, all through the
#              @agentv/eval SDK the binary carries. Checks which runtime ran each one.
#   5. secrets: scripts/e2e-secrets (as working-directory): probes that read the environment of
#              every process up to PID 1 (agentv) and a file reference to /proc/self/environ,
#              and an orphan for PID 1 to reap. Checks that no token variable was visible, the
#              orphan was reaped and the token is in no file.
#   6. shard-1, shard-2: docs/action.md's matrix workflow, one leg per run (the shared tool runs
#              one job): the self-test's shards job on scripts/e2e-matrix (6 cases, cli targets
#              with cache: true, one fails on purpose) with shard: I/2, cache: read-write and
#              comment: always. Checks 3 cases a leg, the legs' case ids disjoint and all 6, the
#              shard in results.jsonl, no API request, "0 of 6 calls from cache", the cache folder.
#   7. shard-cached: leg 2 again with the cache folder leg 2 left (as actions/cache restores
#              it). Checks "6 of 6 calls from cache", that the agent never ran, the same scores.
#   8. merge:  the shards-report job's mode: report on both legs' results.jsonl (copied to
#              shards/agentv-shard-I/, where actions/download-artifact puts them; results:
#              shards/*/results.jsonl). Checks the whole suite's outputs (6 cases, 5 passed),
#              the JUnit testcases, the summary, and one new comment (POST) with its own key.
#   9. baseline: the whole suite unsharded with baseline: scripts/e2e-matrix/baseline.jsonl
#              (moon-landing regressed, capital-italy improved) and max-regressions 0. Checks
#              the failed step, the regressions, improvements and mean-score-delta outputs, the
#              summary's Regressions table, and counts and testcases equal to pass 8's.
# After each pass, the matching check step of .github/workflows/self-test.yml is replayed on
# the host against the pass's outputs and files, so the workflow expects what the binary does.
#
# Usage: sudo scripts/container-e2e.sh [--ref GIT_REF] [--skip-PASS...] [--prebuilt]
#   --ref REF       test a committed snapshot (git archive REF) instead of the work tree
#                   (tracked and untracked, not ignored, files, like the shared tool copies)
#   --skip-report, --skip-dry-run, --skip-runtimes, --skip-secrets   leave out pass 2, 3, 4 or 5
#   --skip-shards   leave out passes 6-8 (7 and 8 need the legs); --skip-cache, --skip-merge
#                   leave out pass 7 or 8; --skip-baseline leaves out pass 9
#   --prebuilt      rewrite action.yml as .github/workflows/release.yml does (image:
#                   docker://ghcr.io/agentv/action:<tag>), with a build of the Dockerfile
#                   standing in for that image
# Environment: AGENTV_E2E_TOOL (default ../shared/tools/container-e2e.sh from the repo),
# AGENTV_E2E_UID (owner of the workspace, default 1001 as on GitHub's runners),
# E2E_CACHE (default ~/.cache/agentv-e2e) and the shared tool's other E2E_* settings, except
# E2E_WITH, E2E_API_URL and E2E_OUT, which this script sets.
# Outputs: $E2E_CACHE/out-{run,report,dry-run,runtimes,secrets,shard-1,shard-2,shard-cached,
# merge,baseline} (the shared tool's files) and
# $E2E_CACHE/fakegithub.json (the fake API's requests and comments).
# Exit status: 0 when every check passed, 1 when a check failed, 2 on a setup error.
# shellcheck disable=SC2015 # `cond && ok … || bad …`: ok always succeeds
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
TOOL=${AGENTV_E2E_TOOL:-$ROOT/../shared/tools/container-e2e.sh}
export E2E_CACHE=${E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentv-e2e}
export E2E_REPO=${E2E_REPO:-octo/e2e-repo}
export E2E_PR_NUMBER=${E2E_PR_NUMBER:-7}
export E2E_GITHUB_TOKEN=${E2E_GITHUB_TOKEN:-e2e-fake-token}
KEY=container-e2e # comment-key of both passes: pass 2 must find pass 1's comment

REF="" REPORT=1 DRYRUN=1 RUNTIMES=1 SECRETS=1 SHARDS=1 CACHE=1 MERGE=1 BASELINE=1 PREBUILT=0
while (($#)); do
	case $1 in
	--ref) REF=${2:?--ref needs a git ref}; shift 2 ;;
	--skip-report) REPORT=0; shift ;;
	--skip-dry-run) DRYRUN=0; shift ;;
	--skip-runtimes) RUNTIMES=0; shift ;;
	--skip-secrets) SECRETS=0; shift ;;
	--skip-shards) SHARDS=0; shift ;;
	--skip-cache) CACHE=0; shift ;;
	--skip-merge) MERGE=0; shift ;;
	--skip-baseline) BASELINE=0; shift ;;
	--prebuilt) PREBUILT=1; shift ;;
	-h | --help) sed -n '2,/^# shellcheck/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "container-e2e: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

FAILURES=0
say() { printf '\033[1mcontainer-e2e:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mcontainer-e2e: SETUP ERROR:\033[0m %s\n' "$*" >&2; exit 2; }
bad() { printf '\033[1;31mcontainer-e2e: CHECK FAILED:\033[0m %s\n' "$*" >&2; FAILURES=$((FAILURES + 1)); }
ok() { printf '  ok  %s\n' "$*" >&2; }
# expect WHAT GOT WANT
expect() { if [[ $2 == "$3" ]]; then ok "$1 = $3"; else bad "$1 is '$2', want '$3'"; fi; }
# expect_re WHAT GOT REGEX
expect_re() { if [[ $2 =~ $3 ]]; then ok "$1 = $2"; else bad "$1 is '$2', want a match of $3"; fi; }

[[ $EUID -eq 0 ]] || die "run as root: the shared tool starts dockerd and may apt-get"
[[ -x $TOOL ]] || die "shared tool not found at $TOOL (set AGENTV_E2E_TOOL)"
for t in go jq git python3; do command -v "$t" >/dev/null || die "$t is not installed"; done

TMP=$(mktemp -d /tmp/agentv-container-e2e.XXXXXX)
FAKE_PID=""
cleanup() {
	if [[ -n $FAKE_PID ]]; then kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null || true; fi
	rm -rf --one-file-system "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The project as the runner's checkout would hold it. A staged copy (not a git work tree)
# lets pass 2 add pass 1's results file; the shared tool copies it whole.
PROJECT=$TMP/project
mkdir -p "$PROJECT"
if [[ -n $REF ]]; then
	git -C "$ROOT" archive "$REF" | tar -C "$PROJECT" -xf - || die "git archive $REF failed"
	say "project: $REF ($(git -C "$ROOT" rev-parse --short "$REF"))"
else
	(cd "$ROOT" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
		[[ -e $f || -L $f ]] && printf '%s\0' "$f"
	done | tar --null -T - -cf -) | tar -C "$PROJECT" -xf -
	say "project: the work tree of $ROOT (uncommitted changes included; --ref HEAD for a snapshot)"
fi

# The fake GitHub API on a free loopback port; it writes its state after every request.
# A release's action.yml runs a prebuilt image; rewrite it as release.yml does, and let the
# shared tool stand a build of the Dockerfile in for that image.
if ((PREBUILT)); then
	image=ghcr.io/agentv/action:v0.0.0-e2e
	sed -i "s|^  image: Dockerfile\$|  image: docker://$image|" "$PROJECT/action.yml"
	grep -qx "  image: docker://$image" "$PROJECT/action.yml" || die "action.yml has no '  image: Dockerfile' line to rewrite (release.yml would fail too)"
	export E2E_DOCKERFILE=Dockerfile
	say "action.yml rewritten as a release would: image: docker://$image"
fi

# On GitHub's runners the workspace belongs to the runner user (uid 1001) while a container
# action runs as root: what the action writes must be given back to that owner. Root runs
# git on the scratch copy (the shared tool), hence safe.directory for those calls only.
WS_UID=${AGENTV_E2E_UID:-1001}
chown -R "$WS_UID:$WS_UID" "$PROJECT"
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'

say "building the fake GitHub API (action/actiontest/fakegithub)"
(cd "$ROOT" && go build -o "$TMP/fakegithub" ./action/actiontest/fakegithub) || die "go build of the fake GitHub API failed"
STATE=$E2E_CACHE/fakegithub.json
mkdir -p "$E2E_CACHE"
rm -f "$STATE"
"$TMP/fakegithub" -addr 127.0.0.1:0 -state "$STATE" -token "$E2E_GITHUB_TOKEN" >"$TMP/fake.out" 2>"$TMP/fake.err" &
FAKE_PID=$!
for _ in $(seq 50); do
	[[ -s $TMP/fake.out ]] && break
	kill -0 "$FAKE_PID" 2>/dev/null || die "the fake GitHub API exited: $(cat "$TMP/fake.err")"
	sleep 0.1
done
API_URL=$(head -n1 "$TMP/fake.out")
[[ $API_URL == http://127.0.0.1:*/api/v3 ]] || die "the fake GitHub API printed '$API_URL', not its URL"
say "fake GitHub API at $API_URL (pid $FAKE_PID), accepting only the token '$E2E_GITHUB_TOKEN'"

# run_tool NAME WITH: one run of the shared tool into $E2E_CACHE/out-NAME.
run_tool() {
	local name=$1 with=$2 rc start
	OUT=$E2E_CACHE/out-$name
	say "pass $name: running the shared tool (log streams below; files in $OUT)"
	start=$(date +%s)
	E2E_OUT=$OUT E2E_WITH=$with E2E_API_URL=$API_URL "$TOOL" "$PROJECT" && rc=0 || rc=$?
	say "pass $name: shared tool exit status $rc after $(($(date +%s) - start))s"
	((rc != 2)) || die "the shared tool failed before act ran (see $OUT/build.log and the log above)"
	ACT_RC=$rc
	[[ -s $OUT/outputs.json ]] || bad "$OUT/outputs.json is missing or empty"
}

# expect_job WANT: the action step's outcome (success or failure) and act's exit status.
expect_job() {
	expect "action step outcome" "$(cat "$OUT/outcome" 2>/dev/null)" "$1"
	expect "act exit status (0 = the job succeeded)" "$ACT_RC" "$([[ $1 == success ]] && echo 0 || echo 1)"
}

mark() { python3 -c 'import sys, urllib.parse as u; print(u.quote(sys.argv[1], safe="._").replace("-", "%2D").replace("~", "%7E"))' "$1"; }
# selftest_check JOB STEP [NAME=value...] [@ID=OUTPUTS_JSON...]: runs that `run:` step of the
# self-test workflow on the host against this pass's outputs (its `env:` from
# steps.*.outputs.*, those of step ID from another pass's outputs.json, plus the given values)
# in the pass's workspace files, so the workflow's expectations are the binary's.
selftest_check() {
	local job=$1 step=$2 rc=0
	shift 2
	if ! python3 -c 'import yaml' 2>/dev/null; then
		say "note: python3 has no yaml module; the self-test's '$step' step is not replayed"
		return
	fi
	python3 - "$PROJECT/.github/workflows/self-test.yml" "$job" "$step" "$OUT" "$@" <<'PY' || rc=$?
import json, os, re, subprocess, sys, yaml
wf_path, job, name, out, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
steps = [s for s in yaml.safe_load(open(wf_path))["jobs"][job]["steps"] if s.get("name") == name]
if len(steps) != 1:
    sys.exit(f"no step '{name}' in job '{job}' of {wf_path}")
outputs = json.load(open(os.path.join(out, "outputs.json")))
# @ID=FILE reads the outputs of step ID from another pass's outputs.json.
others = {kv[1:].split("=", 1)[0]: json.load(open(kv.split("=", 1)[1])) for kv in extra if kv.startswith("@")}
env = dict(os.environ)
for k, v in (steps[0].get("env") or {}).items():
    m = re.fullmatch(r"\$\{\{ *steps\.([\w-]+)\.outputs\.([\w-]+) *\}\}", str(v))
    env[k] = others.get(m.group(1), outputs).get(m.group(2), "") if m else ""
env.update(kv.split("=", 1) for kv in extra if not kv.startswith("@"))
sys.exit(subprocess.run(["bash", "-e", "-c", steps[0]["run"]], cwd=os.path.join(out, "workspace"), env=env).returncode)
PY
	((rc == 0)) && ok "self-test.yml $job / '$step' passes on these outputs" ||
		bad "self-test.yml $job / '$step' fails on what the binary produced (exit $rc): the workflow or the binary is wrong"
}

out() { jq -r --arg k "$1" '.[$k] // "<unset>"' "$OUT/outputs.json"; }
# stage_scripts NAME: scripts/NAME into the project. Already there unless --ref names a commit
# from before it; scripts/ is left out of the image's build context, so the image stays cached.
stage_scripts() {
	[[ -d $PROJECT/scripts/$1 ]] && return
	mkdir -p "$PROJECT/scripts"
	cp -r "$ROOT/scripts/$1" "$PROJECT/scripts/$1"
	chown -R "$WS_UID:$WS_UID" "$PROJECT/scripts"
}
requests() { jq -r '.requests[] | "\(.method) \(.path)"' "$STATE" 2>/dev/null; }

# ---------------------------------------------------------------- pass 1: run
WITH_RUN=$(
	cat <<EOF
evals: examples/quickstart/evals/*.yaml
targets: examples/quickstart/targets.yaml
min-score: "0.7"
max-failures: "1"
comment: always
comment-key: $KEY
EOF
)
run_tool run "$WITH_RUN"
RUN_OUT=$OUT
expect_job success
say "pass run: checking outputs"
expect outcome "$(out outcome)" pass
expect total "$(out total)" 4
expect passed "$(out passed)" 3
expect failed "$(out failed)" 1
expect errors "$(out errors)" 0
expect skipped "$(out skipped)" 0
expect pass-rate "$(out pass-rate)" 0.7500
expect mean-score "$(out mean-score)" 0.9167
expect results-path "$(out results-path)" agentv-results/results.jsonl
expect junit-path "$(out junit-path)" agentv-results/junit.xml
expect summary-path "$(out summary-path)" agentv-results/summary.md
expect_re comment-url "$(out comment-url)" "^https://github\.example/pull/$E2E_PR_NUMBER#issuecomment-[0-9]+$"

selftest_check evals "Check outputs and files"

say "pass run: checking the files in the workspace"
WS=$RUN_OUT/workspace
for f in results.jsonl junit.xml summary.md comment.md; do
	[[ -s $WS/agentv-results/$f ]] && ok "agentv-results/$f written" || bad "agentv-results/$f is missing or empty in the workspace"
done
# expect_owned DIR: the files in DIR (the shared tool's copy, which keeps file owners but
# makes its own folders) and the folder itself in the job's workspace (the shared tool's
# scratch repository, until the next pass replaces it) belong to the workspace owner.
expect_owned() {
	local rel=${1#"$OUT/workspace/"} wrong live=$E2E_CACHE/work/repo/${1#"$OUT/workspace/"}
	[[ -d $1 ]] || return 0
	wrong=$(find "$1" -type f \( ! -uid "$WS_UID" -o ! -gid "$WS_UID" \) -printf '%P (%u:%g) ' | head -c 300)
	if [[ -d $live ]] && [[ $(stat -c %u:%g "$live") != "$WS_UID:$WS_UID" ]]; then
		wrong+="the folder itself ($(stat -c %U:%G "$live"))"
	fi
	[[ -z $wrong ]] && ok "$rel belongs to the workspace owner $WS_UID:$WS_UID" ||
		bad "not given to the workspace owner $WS_UID:$WS_UID in $rel: $wrong"
}
expect_owned "$WS/agentv-results"
if [[ -s $WS/agentv-results/results.jsonl ]]; then
	expect "results.jsonl case records" "$(jq -c 'select(has("record") | not)' "$WS/agentv-results/results.jsonl" | wc -l | tr -d ' ')" 4
	expect "results.jsonl run records" "$(jq -r 'select(has("record")) | .record' "$WS/agentv-results/results.jsonl" | tr '\n' ' ')" "run_start run_end "
	jq -e . "$WS/agentv-results/results.jsonl" >/dev/null 2>&1 && ok "results.jsonl is JSON lines" || bad "results.jsonl is not JSON lines"
fi
if [[ -s $WS/agentv-results/junit.xml ]]; then
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$WS/agentv-results/junit.xml" &&
		ok "junit.xml is well-formed" || bad "junit.xml is not well-formed XML"
	expect_re "junit.xml tests/failures" "$(grep -o '<testsuites[^>]*' "$WS/agentv-results/junit.xml" | head -1)" 'tests="4".*failures="1"'
fi

say "pass run: checking the step summary"
SUMMARY=$RUN_OUT/summary.md
HEAD_SHA=$(jq -r .pull_request.head.sha "$RUN_OUT/event.json")
if [[ ! -s $SUMMARY ]]; then
	bad "the step summary is empty ($SUMMARY): GITHUB_STEP_SUMMARY was not written or act did not see it"
else
	grep -q '^## .*AgentV evals: pass' "$SUMMARY" && ok "summary headline says pass" || bad "summary has no '## … AgentV evals: pass' headline"
	grep -q 'haiku' "$SUMMARY" && ok "summary names the failing case" || bad "summary does not name the failing case haiku"
	link="https://github.com/$E2E_REPO/blob/$HEAD_SHA/examples/quickstart/evals/quickstart.yaml#L50"
	grep -qF "$link" "$SUMMARY" && ok "summary links the failing case at the head SHA" || bad "summary lacks the link $link"
	[[ -s $WS/agentv-results/summary.md ]] && ! cmp -s <(tr -d '\r' <"$SUMMARY") <(tr -d '\r' <"$WS/agentv-results/summary.md") &&
		say "note: the step summary and agentv-results/summary.md differ (see both files)"
fi

say "pass run: checking the annotations"
ANN=$RUN_OUT/annotations.json
expect "error annotations" "$(jq '[.[] | select(.type == "error")] | length' "$ANN")" 1
expect "error annotation file" "$(jq -r '[.[] | select(.type == "error")][0].properties.file // ""' "$ANN")" examples/quickstart/evals/quickstart.yaml
expect "error annotation line" "$(jq -r '[.[] | select(.type == "error")][0].properties.line // ""' "$ANN")" 50
expect_re "error annotation title" "$(jq -r '[.[] | select(.type == "error")][0].properties.title // ""' "$ANN")" 'haiku'
warnings=$(jq -r '.[] | select(.type == "warning") | .message' "$ANN")
[[ -z $warnings ]] && ok "no warning annotations" || bad "warning annotations: $warnings"

say "pass run: checking the comment the fake GitHub API received"
if [[ ! -s $STATE ]]; then
	bad "the fake GitHub API got no request (is GITHUB_API_URL reaching the action container?)"
else
	expect "unexpected API requests" "$(jq -r '.unexpected | join(", ")' "$STATE")" ""
	expect "comments on PR $E2E_PR_NUMBER" "$(jq --arg pr "$E2E_PR_NUMBER" '.comments[$pr] | length' "$STATE")" 1
	expect "last request" "$(requests | tail -1)" "POST /repos/$E2E_REPO/issues/$E2E_PR_NUMBER/comments"
	expect "authorization of every request" "$(jq -r '[.requests[].auth] | unique | join(", ")' "$STATE")" "Bearer $E2E_GITHUB_TOKEN"
	if [[ $(jq --arg pr "$E2E_PR_NUMBER" '.comments[$pr] | length' "$STATE") == 1 ]]; then
		body=$(jq -r --arg pr "$E2E_PR_NUMBER" '.comments[$pr][0].body' "$STATE")
		# The marker percent-encodes every byte but letters, digits, '.' and '_' (action/comment.go).
		marker="<!-- agentv-action:v1 workflow=$(mark container-e2e) job=$(mark e2e) key=$(mark "$KEY") -->"
		[[ $body == "$marker"* ]] && ok "comment starts with the marker $marker" || bad "comment does not start with $marker: $(head -c 120 <<<"$body")"
		grep -q 'haiku' <<<"$body" && ok "comment names the failing case" || bad "comment does not name the failing case haiku"
		if [[ -s $WS/agentv-results/comment.md ]]; then
			cmp -s <(jq -j --arg pr "$E2E_PR_NUMBER" '.comments[$pr][0].body' "$STATE") "$WS/agentv-results/comment.md" &&
				ok "comment body = agentv-results/comment.md" || bad "the posted comment differs from agentv-results/comment.md"
		fi
		url_id=$(out comment-url) url_id=${url_id##*-}
		expect "comment-url's id" "$url_id" "$(jq -r --arg pr "$E2E_PR_NUMBER" '.comments[$pr][0].id' "$STATE")"
	fi
fi
if grep -rqF -- "$E2E_GITHUB_TOKEN" "$WS" "$SUMMARY" "$RUN_OUT/outputs.json" 2>/dev/null ||
	jq -r '.comments[][].body' "$STATE" | grep -qF -- "$E2E_GITHUB_TOKEN"; then
	bad "the token appears in the workspace files, summary, outputs or comment"
else
	ok "the token appears in no file, summary, output or comment"
fi

# ---------------------------------------------------------------- pass 2: report
if ((REPORT)); then
	if [[ -s $WS/agentv-results/results.jsonl ]]; then
		# Where the self-test's report step reads it; .dockerignore keeps it out of the build.
		mkdir -p "$PROJECT/agentv-results"
		cp "$WS/agentv-results/results.jsonl" "$PROJECT/agentv-results/results.jsonl"
		chown -R "$WS_UID:$WS_UID" "$PROJECT/agentv-results"
		n_before=$(jq '.requests | length' "$STATE" 2>/dev/null || echo 0)
		WITH_REPORT=$(
			cat <<EOF
mode: report
results: agentv-results/results.jsonl
results-dir: agentv-report
comment: always
comment-key: $KEY
min-score: "0.7"
max-failures: "1"
EOF
		)
		run_tool report "$WITH_REPORT"
		expect_job success
		say "pass report: checking outputs, files and the comment edit"
		expect outcome "$(out outcome)" pass
		expect total "$(out total)" 4
		expect failed "$(out failed)" 1
		expect pass-rate "$(out pass-rate)" 0.7500
		expect junit-path "$(out junit-path)" agentv-report/junit.xml
		expect comment-url "$(out comment-url)" "$(jq -r '.["comment-url"]' "$RUN_OUT/outputs.json")"
		[[ -s $OUT/workspace/agentv-report/junit.xml ]] && ok "agentv-report/junit.xml written" || bad "agentv-report/junit.xml is missing"
		expect_owned "$OUT/workspace/agentv-report"
		expect "comments on PR $E2E_PR_NUMBER after the report pass" "$(jq --arg pr "$E2E_PR_NUMBER" '.comments[$pr] | length' "$STATE")" 1
		id=$(jq -r --arg pr "$E2E_PR_NUMBER" '.comments[$pr][0].id' "$STATE")
		expect "last request" "$(requests | tail -1)" "PATCH /repos/$E2E_REPO/issues/comments/$id"
		selftest_check evals "Check the report outputs" EVENT=pull_request SAME_REPO=true
		cmp -s <(jq -j --arg pr "$E2E_PR_NUMBER" '.comments[$pr][0].body' "$STATE") "$OUT/workspace/agentv-report/comment.md" &&
			ok "edited comment body = agentv-report/comment.md" || bad "the edited comment differs from agentv-report/comment.md"
		expect "POSTs in the report pass" "$(jq --argjson n "$n_before" '[.requests[$n:][] | select(.method == "POST")] | length' "$STATE")" 0
	else
		bad "pass report skipped: pass 1 wrote no results.jsonl"
	fi
fi

# ---------------------------------------------------------------- pass 3: dry-run
# The self-test's dry-run job: mocks answer, code judges still score them, so the gate may
# fail. Whatever the outcome, the step's exit status must agree with it, the outputs must be
# there (reports first, then the exit code), and comment: off must not touch the API.
if ((DRYRUN)); then
	rm -rf "$PROJECT/agentv-results" # pass 2's input: every file checked here must be new
	n_before=$(jq '.requests | length' "$STATE" 2>/dev/null || echo 0)
	WITH_DRY=$(
		cat <<EOF
evals: examples/quickstart/evals/*.yaml
targets: examples/quickstart/targets.yaml
dry-run: "true"
comment: "off"
EOF
	)
	run_tool dry-run "$WITH_DRY"
	say "pass dry-run: checking outputs and the exit status"
	outcome=$(out outcome)
	case $outcome in
	pass) expect_job success ;;
	fail) expect_job failure ;;
	*) bad "dry-run outcome is '$outcome', want pass or fail" ;;
	esac
	expect total "$(out total)" 4
	expect errors "$(out errors)" 0
	expect comment-url "$(out comment-url)" ""
	selftest_check dry-run "Check outputs"
	[[ -s $OUT/workspace/agentv-results/junit.xml ]] && ok "agentv-results/junit.xml written" || bad "agentv-results/junit.xml is missing"
	expect_owned "$OUT/workspace/agentv-results"
	expect "API requests with comment: off" "$(jq --argjson n "$n_before" '.requests[$n:] | length' "$STATE" 2>/dev/null || echo 0)" 0
fi

# ---------------------------------------------------------------- pass 4: runtimes
# The runtimes the image must carry: TypeScript judges under bun and tsx, a JavaScript judge
# under node, a Python judge and a TypeScript prompt template, all through the @agentv/eval
# SDK the binary carries (scripts/e2e-runtimes; mock targets, so only the scripts run).
if ((RUNTIMES)); then
	rm -rf "$PROJECT/agentv-results"
	stage_scripts e2e-runtimes
	WITH_RT=$(
		cat <<EOF
working-directory: scripts/e2e-runtimes
evals: evals/*.yaml
targets: targets.yaml
comment: "off"
EOF
	)
	run_tool runtimes "$WITH_RT"
	expect_job success
	say "pass runtimes: checking which runtime ran each script"
	expect outcome "$(out outcome)" pass
	expect total "$(out total)" 5
	expect passed "$(out passed)" 5
	# results-dir stays relative to the workspace whatever the working-directory.
	expect results-path "$(out results-path)" agentv-results/results.jsonl
	selftest_check runtimes "Check which runtime ran each script"
	R=$OUT/workspace/agentv-results/results.jsonl
	if [[ -s $R ]]; then
		rt() { jq -r --arg id "$1" 'select(.eval_id == $id) | .evaluator_results[0].details.runtime // "<none>"' "$R"; }
		expect "runtime of the .ts judge run with bun" "$(rt ts-bun)" bun
		expect "runtime of the .ts judge run with tsx" "$(rt ts-tsx)" node
		expect "runtime of the .mjs judge run with node" "$(rt js-node)" node
		expect "runtime of the .py judge" "$(rt python)" python
		expect_re "Node.js version in the image" "$(jq -r 'select(.eval_id == "ts-tsx") | .evaluator_results[0].details.node // ""' "$R")" '^24\.'
		expect "prompt rendered by the .ts template" \
			"$(jq -r 'select(.eval_id == "ts-template") | .evaluator_results[0].evaluator_provider_request.user_prompt // "" | split("\n")[0]' "$R")" \
			"Does this answer name Paris?"
	else
		bad "the runtimes pass wrote no agentv-results/results.jsonl"
	fi
fi

# ---------------------------------------------------------------- pass 5: secrets
# agentv as the container's PID 1 (scripts/e2e-secrets): a probe agent and a probe judge read
# /proc/<pid>/environ of themselves and of every ancestor up to PID 1, the case sends a file
# reference to /proc/self/environ, and the agent leaves an orphan for PID 1 to reap. No
# token variable may be visible anywhere, and the token must appear in no file.
if ((SECRETS)); then
	rm -rf "$PROJECT/agentv-results"
	stage_scripts e2e-secrets
	WITH_SEC=$(
		cat <<EOF
working-directory: scripts/e2e-secrets
evals: evals/*.yaml
targets: targets.yaml
comment: "off"
EOF
	)
	run_tool secrets "$WITH_SEC"
	expect_job success
	say "pass secrets: checking what the probes could read"
	expect outcome "$(out outcome)" pass
	expect total "$(out total)" 1
	PROBES=$OUT/workspace/scripts/e2e-secrets
	for role in agent judge; do
		P=$PROBES/probe-$role.json
		if [[ ! -s $P ]]; then
			bad "the $role probe wrote no probe-$role.json"
			continue
		fi
		expect "token variables the $role saw in any environ" "$(jq -r '.visible | join(", ")' "$P")" ""
		expect "PID 1 (the $role's view)" "$(jq -r .pid1 "$P")" /usr/local/bin/agentv
		expect_re "processes the $role probed" "$(jq -r '.environ | keys | join(" ")' "$P")" '(^| )1( |$)'
	done
	[[ -s $PROBES/probe-agent.json ]] && expect "orphan left by the agent" "$(jq -r .orphan "$PROBES/probe-agent.json")" reaped
	if grep -rqF -- "$E2E_GITHUB_TOKEN" "$OUT/workspace" "$OUT/summary.md" "$OUT/outputs.json" 2>/dev/null; then
		bad "the token appears in the workspace files (probes, results), summary or outputs"
	else
		ok "the token appears in no probe file, result, summary or output"
	fi
fi

# ---------------------------------------------------------------- passes 6-8: the matrix
# docs/action.md's matrix workflow, leg by leg (the shared tool runs one job of one step): the
# self-test's shards job for shard 1/2 and 2/2 of scripts/e2e-matrix (six cases, one fails
# on purpose; cli targets with cache: true) with the response cache, each leg in its own
# workspace; the same leg again with the cache folder the first run left (what actions/cache
# restores); then the shards-report job's mode: report on both legs' results files, copied
# where actions/download-artifact puts them.
MKEY=e2e-matrix # comment-key of the merged report
MATRIX_IDS="arithmetic boiling capital-france capital-italy moon-landing planet"
WITH_MATRIX=$(
	cat <<EOF
working-directory: scripts/e2e-matrix
evals: evals/*.yaml
targets: targets.yaml
max-failures: "1"
EOF
)
# case_ids RESULTS: the case ids of a results file, sorted, on one line.
case_ids() { jq -r 'select(has("record") | not) | .eval_id' "$1" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//'; }
# junit_cases JUNIT: "classname/name" of each testcase, and "!" after a failed one, sorted.
junit_cases() {
	python3 -c '
import sys, xml.etree.ElementTree as ET
print(" ".join(sorted(c.get("classname") + "/" + c.get("name") + ("!" if c.find("failure") is not None else "") for c in ET.parse(sys.argv[1]).iter("testcase"))))' "$1" 2>/dev/null
}
declare -A LEG_OUT=()
if ((SHARDS)); then
	stage_scripts e2e-matrix
	rm -rf "$PROJECT/agentv-results" "$PROJECT/.agentv-cache"
	leg_ids=""
	for i in 1 2; do
		n_before=$(jq '.requests | length' "$STATE" 2>/dev/null || echo 0)
		run_tool "shard-$i" "$WITH_MATRIX"$'\n'"shard: $i/2"$'\n'"cache: read-write"$'\n'"cache-dir: .agentv-cache"$'\n'"comment: always"$'\n'"comment-key: $MKEY"
		LEG_OUT[$i]=$OUT
		expect_job success
		say "pass shard-$i: checking the leg's outputs, results and cache"
		expect outcome "$(out outcome)" pass
		expect total "$(out total)" 3 # six cases in two shards of equal length
		expect comment-url "$(out comment-url)" ""
		expect "API requests of a shard with comment: always" "$(jq --argjson n "$n_before" '.requests[$n:] | length' "$STATE" 2>/dev/null || echo 0)" 0
		R=$OUT/workspace/agentv-results/results.jsonl
		if [[ -s $R ]]; then
			expect "shard in run_start" "$(jq -c 'select(.record == "run_start") | .shard' "$R")" "{\"index\":$i,\"count\":2}"
			expect "cases the plan selected (run_end)" "$(jq -r 'select(.record == "run_end") | .shard.plan_cases' "$R")" 6
			expect "cache use of each case (first run)" "$(jq -c 'select(has("record") | not) | .cache' "$R" | sort -u)" '{"hits":0,"misses":2}'
			leg_ids+=" $(case_ids "$R")"
		else
			bad "shard $i wrote no agentv-results/results.jsonl"
		fi
		grep -qF "0 of 6 calls from cache" "$OUT/summary.md" && ok "step summary says 0 of 6 calls from cache" || bad "the step summary does not say '0 of 6 calls from cache'"
		expect "agent runs (calls.log lines)" "$(wc -l <"$OUT/workspace/scripts/e2e-matrix/calls.log" 2>/dev/null | tr -d ' ' || echo 0)" 3
		entries=$(find "$OUT/workspace/.agentv-cache" -type f 2>/dev/null | wc -l)
		((entries > 0)) && ok ".agentv-cache holds $entries files" || bad "the leg left no files in .agentv-cache"
		expect_owned "$OUT/workspace/agentv-results"
		expect_owned "$OUT/workspace/.agentv-cache"
		selftest_check shards "Check the shard" SHARD="$i"
	done
	expect "case ids of both legs (each once)" "$(tr ' ' '\n' <<<"$leg_ids" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//')" "$MATRIX_IDS"

	# ------------------------------------------------------------ pass 7: shard-cached
	# Leg 2 again, its workspace holding the cache folder leg 2 left, as actions/cache restores
	# it; results-dir as in the self-test's second run in the same job.
	if ((CACHE)) && [[ -d ${LEG_OUT[2]}/workspace/.agentv-cache ]]; then
		rm -rf "$PROJECT/.agentv-cache"
		cp -r "${LEG_OUT[2]}/workspace/.agentv-cache" "$PROJECT/.agentv-cache"
		chown -R "$WS_UID:$WS_UID" "$PROJECT/.agentv-cache"
		run_tool shard-cached "$WITH_MATRIX"$'\n'"shard: 2/2"$'\n'"cache: read-write"$'\n'"cache-dir: .agentv-cache"$'\n'"results-dir: agentv-results-cached"
		rm -rf "$PROJECT/.agentv-cache"
		expect_job success
		say "pass shard-cached: checking that the cache answered every call"
		for k in outcome total passed failed errors mean-score; do
			expect "$k (= the first run of leg 2)" "$(out "$k")" "$(jq -r --arg k "$k" '.[$k]' "${LEG_OUT[2]}/outputs.json")"
		done
		grep -qF "6 of 6 calls from cache" "$OUT/summary.md" && ok "step summary says 6 of 6 calls from cache" || bad "the step summary does not say '6 of 6 calls from cache': $(grep -F 'from cache' "$OUT/summary.md")"
		[[ ! -e $OUT/workspace/scripts/e2e-matrix/calls.log ]] && ok "the agent never ran (no calls.log)" || bad "the agent ran $(wc -l <"$OUT/workspace/scripts/e2e-matrix/calls.log") times despite the cache"
		R=$OUT/workspace/agentv-results-cached/results.jsonl
		if [[ -s $R ]]; then
			expect "cache use of each case (from the cache)" "$(jq -c 'select(has("record") | not) | .cache | {hits, misses}' "$R" | sort -u)" '{"hits":2,"misses":0}'
			scores() { jq -r 'select(has("record") | not) | "\(.eval_id)=\(.score)/\(.candidate_answer)"' "$1" | sort; }
			expect "scores and answers (= the first run of leg 2)" "$(scores "$R" | tr '\n' ' ')" "$(scores "${LEG_OUT[2]}/workspace/agentv-results/results.jsonl" | tr '\n' ' ')"
		else
			bad "the cached leg wrote no agentv-results-cached/results.jsonl"
		fi
		selftest_check shards "Check the run from the cache"
	elif ((CACHE)); then
		bad "pass shard-cached skipped: leg 2 left no .agentv-cache"
	fi

	# ------------------------------------------------------------ pass 8: merge
	MERGE_OUT=""
	if ((MERGE)); then
		rm -rf "$PROJECT/shards"
		for i in 1 2; do
			mkdir -p "$PROJECT/shards/agentv-shard-$i"
			cp "${LEG_OUT[$i]}/workspace/agentv-results/results.jsonl" "$PROJECT/shards/agentv-shard-$i/" 2>/dev/null ||
				bad "leg $i's results.jsonl is missing: the merge will say so"
		done
		chown -R "$WS_UID:$WS_UID" "$PROJECT/shards"
		n_before=$(jq '.requests | length' "$STATE" 2>/dev/null || echo 0)
		WITH_MERGE=$(
			cat <<EOF
mode: report
results: shards/*/results.jsonl
results-dir: agentv-merged
max-failures: "1"
comment: always
comment-key: $MKEY
EOF
		)
		run_tool merge "$WITH_MERGE"
		MERGE_OUT=$OUT
		rm -rf "$PROJECT/shards"
		expect_job success
		say "pass merge: checking the one merged report"
		expect outcome "$(out outcome)" pass
		expect total "$(out total)" 6
		expect passed "$(out passed)" 5
		expect failed "$(out failed)" 1
		expect errors "$(out errors)" 0
		expect pass-rate "$(out pass-rate)" 0.8333
		expect mean-score "$(out mean-score)" 0.8333
		expect junit-path "$(out junit-path)" agentv-merged/junit.xml
		expect summary-path "$(out summary-path)" agentv-merged/summary.md
		expect results-path "$(out results-path)" agentv-merged/results.jsonl
		W=$OUT/workspace/agentv-merged
		for f in results.jsonl junit.xml summary.md comment.md; do
			[[ -s $W/$f ]] && ok "agentv-merged/$f written" || bad "agentv-merged/$f is missing or empty"
		done
		expect_owned "$W"
		[[ -s $W/junit.xml ]] && expect "junit.xml testcases (! = failed)" "$(junit_cases "$W/junit.xml")" \
			"matrix/arithmetic matrix/boiling matrix/capital-france matrix/capital-italy matrix/moon-landing! matrix/planet"
		grep -q '^## .*AgentV evals: pass' "$OUT/summary.md" && ok "summary headline says pass" || bad "summary has no '## … AgentV evals: pass' headline"
		grep -qF '**6 cases**' "$OUT/summary.md" && ok "summary counts 6 cases" || bad "summary does not count 6 cases"
		grep -qF "0 of 12 calls from cache" "$OUT/summary.md" && ok "summary adds up the legs' cache use (0 of 12 calls)" || bad "summary does not say '0 of 12 calls from cache'"
		grep -qi 'shard' "$OUT/summary.md" && say "note: the merged summary mentions shards: $(grep -i shard "$OUT/summary.md" | head -2)"
		expect "unexpected API requests" "$(jq -r '.unexpected | join(", ")' "$STATE")" ""
		expect "POSTs in the merge pass" "$(jq -r --argjson n "$n_before" '[.requests[$n:][] | select(.method == "POST")] | "\(length) \(.[0].path)"' "$STATE")" "1 /repos/$E2E_REPO/issues/$E2E_PR_NUMBER/comments"
		mbody() { jq -j --arg pr "$E2E_PR_NUMBER" --arg m "key=$(mark "$MKEY") -->" '[.comments[$pr][] | select(.body | split("\n")[0] | endswith($m))] | if length == 1 then .[0].body else "\(length) comments" end' "$STATE"; }
		cmp -s <(mbody) "$W/comment.md" && ok "one comment with key $MKEY, its body = agentv-merged/comment.md" ||
			bad "the comments with key $MKEY: $(mbody | head -c 200)"
		url_id=$(out comment-url) url_id=${url_id##*-}
		expect "comment-url's id" "$url_id" "$(jq -r --arg pr "$E2E_PR_NUMBER" '.comments[$pr][-1].id' "$STATE")"
		selftest_check shards-report "Check the merged report"
	fi
fi

# ---------------------------------------------------------------- pass 9: baseline
# The self-test's whole-suite run of scripts/e2e-matrix, unsharded and compared with
# scripts/e2e-matrix/baseline.jsonl (moon-landing scored 1 there, capital-italy 0.5) under
# max-regressions 0: the regression fails the gate. Its counts are the merged report's.
if ((BASELINE)); then
	stage_scripts e2e-matrix
	n_before=$(jq '.requests | length' "$STATE" 2>/dev/null || echo 0)
	run_tool baseline "$WITH_MATRIX"$'\n'"baseline: scripts/e2e-matrix/baseline.jsonl"$'\n'"max-regressions: \"0\""$'\n'"comment: \"off\""
	expect_job failure
	say "pass baseline: checking the comparison"
	expect outcome "$(out outcome)" fail
	expect regressions "$(out regressions)" 1
	expect improvements "$(out improvements)" 1
	expect mean-score-delta "$(out mean-score-delta)" -0.0833
	if [[ -n ${MERGE_OUT:-} ]]; then
		for k in total passed failed errors mean-score pass-rate; do
			expect "$k (unsharded = the merged shards)" "$(out "$k")" "$(jq -r --arg k "$k" '.[$k]' "$MERGE_OUT/outputs.json")"
		done
		[[ -s $OUT/workspace/agentv-results/junit.xml && -s $MERGE_OUT/workspace/agentv-merged/junit.xml ]] &&
			expect "junit.xml testcases (unsharded = the merged shards)" "$(junit_cases "$OUT/workspace/agentv-results/junit.xml")" "$(junit_cases "$MERGE_OUT/workspace/agentv-merged/junit.xml")"
	else
		expect total "$(out total)" 6
		expect failed "$(out failed)" 1
	fi
	S=$OUT/summary.md
	grep -qF '### 🔻 Regressions (1)' "$S" && ok "summary has the Regressions table" || bad "summary has no '### 🔻 Regressions (1)' heading"
	row='| [moon-landing](https://github.com/'"$E2E_REPO"'/blob/'"$(jq -r .pull_request.head.sha "$OUT/event.json")"'/scripts/e2e-matrix/evals/matrix.yaml#L37) | 1.000 → 0.000 | −1.000 |'
	grep -qF "$row" "$S" && ok "the Regressions table has moon-landing 1.000 → 0.000, linked at the head SHA" || bad "no Regressions row starting $row"
	grep -qF 'regressed against the baseline (max-regressions 0): moon-landing' "$S" && ok "summary says why the gate failed" || bad "summary does not say moon-landing regressed past max-regressions 0"
	expect "API requests with comment: off" "$(jq --argjson n "$n_before" '.requests[$n:] | length' "$STATE" 2>/dev/null || echo 0)" 0
	expect_owned "$OUT/workspace/agentv-results"
	args=()
	[[ -n ${MERGE_OUT:-} ]] && args=("@report=$MERGE_OUT/outputs.json")
	selftest_check shards-report "Check the comparison with the baseline" "${args[@]}"
fi

echo >&2
if ((FAILURES)); then
	printf '\033[1;31mcontainer-e2e: %d CHECK(S) FAILED\033[0m (files: %s, fake API state: %s)\n' "$FAILURES" "$E2E_CACHE/out-*" "$STATE" >&2
	exit 1
fi
printf '\033[1;32mcontainer-e2e: all checks passed\033[0m (files: %s, fake API state: %s)\n' "$E2E_CACHE/out-*" "$STATE" >&2
