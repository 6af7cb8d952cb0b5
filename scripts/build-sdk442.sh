#!/usr/bin/env bash
# Builds AgentV 4.42.4's own @agentv/sdk (and @agentv/eval, its deprecated alias) from the
# AgentV source at tag v4.42.4, into OUT/node_modules, so the graders users wrote with it can be
# run on the payload agentv sends (test/e2e TestSDK442RealPackage, AGENTV_TEST_SDK442_DIR=OUT).
# The npm registry does not serve @agentv/sdk 4.42.4; this is the way to get the real one.
#
#   scripts/build-sdk442.sh AGENTV_GIT_DIR OUT
#
# AGENTV_GIT_DIR is a clone (or bare mirror) of github.com/EntityProcess/agentv that has the tag.
# The SDK's sources are bundled with esbuild (the version AgentV's lockfile pins for it), its
# dependencies installed from npm at the versions AgentV's lockfile resolves.
set -euo pipefail
src=${1:?usage: build-sdk442.sh AGENTV_GIT_DIR OUT}
out=${2:?usage: build-sdk442.sh AGENTV_GIT_DIR OUT}
tag=v4.42.4
git -C "$src" rev-parse -q --verify "refs/tags/$tag" >/dev/null || { echo "build-sdk442: $src has no tag $tag" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$src" archive "$tag" tsconfig.base.json packages/sdk packages/eval | tar -x -C "$work"

# The SDK's runtime dependencies, and the bundler, at the versions of AgentV's bun.lock at the tag.
npm install --prefix "$work/build" --no-audit --no-fund --silent zod@3.25.76 yaml@2.8.3 esbuild@0.24.2 >/dev/null

rm -rf "$out" && mkdir -p "$out/node_modules/@agentv"
for pkg in sdk eval; do
  dest="$out/node_modules/@agentv/$pkg"
  mkdir -p "$dest/dist"
  cp "$work/packages/$pkg/package.json" "$dest/"
  for fmt in esm cjs; do
    ext=js; [ "$fmt" = cjs ] && ext=cjs
    # @agentv/eval re-exports @agentv/sdk: keep that an import, as the published package does.
    NODE_PATH="$work/build/node_modules" "$work/build/node_modules/.bin/esbuild" \
      "$work/packages/$pkg/src/index.ts" --bundle --platform=node --target=node20 --format=$fmt \
      --external:zod --external:yaml --external:@agentv/sdk --log-level=warning \
      --outfile="$dest/dist/index.$ext"
  done
done
cp -r "$work/build/node_modules/zod" "$work/build/node_modules/yaml" "$out/node_modules/"
echo "build-sdk442: @agentv/sdk and @agentv/eval $tag in $out/node_modules"
