#!/bin/sh
case "$1" in
  *boom*) echo "crash" >&2; exit 3;;
  *) echo "answer: $1" > "$2";;
esac
