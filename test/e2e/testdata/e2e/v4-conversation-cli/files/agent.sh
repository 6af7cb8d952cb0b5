#!/bin/sh
# Logs each call's id and prompt; fails on a prompt holding FAIL.
prompt=$(cat "$1")
printf '%s: %s\n' "$2" "$prompt" >> "$(dirname "$0")/calls.log"
case "$prompt" in *FAIL*) echo "agent crashed" >&2; exit 3;; esac
printf 'got: %s' "$prompt" > "$3"
