#!/usr/bin/env bash
# Regenerates the screenshots in this directory: the report tests render the summary and the
# comment with cmark-gfm (GitHub's Markdown dialect) into HTML pages styled like GitHub's
# 900-pixel column, Mermaid draws the score chart as GitHub does, and headless Chromium takes
# the pictures. Needs: apt-get install -y cmark-gfm chromium fonts-noto-color-emoji, and npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
mermaid=${AGENTV_MERMAID_DIR:-/tmp/agentv-mermaid}
if [ ! -f "$mermaid/node_modules/mermaid/dist/mermaid.min.js" ]; then
  npm install --prefix "$mermaid" --no-audit --no-fund mermaid@11.12.0 >/dev/null
fi
go test ./report -run TestRenderedReports -count=1 -html-dir "$out" \
  -mermaid-js "$mermaid/node_modules/mermaid/dist/mermaid.min.js"
shot() { # page, png, height
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$(mktemp -d)" --virtual-time-budget=5000 --window-size="900,$3" \
    --screenshot="docs/screenshots/$2" "file://$out/$1.html" 2>/dev/null
}
shot quickstart-comment quickstart-comment.png 760
shot review-300-comment failures-comment.png 2300
shot fixture-comment-open details-open.png 1700
shot baseline-comment baseline-comment.png 1130
shot trials-comment trials-comment.png 620
echo "pages in $out"
