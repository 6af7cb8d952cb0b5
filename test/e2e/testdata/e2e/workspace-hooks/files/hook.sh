# A workspace hook: $1 names it, $2 is the workspace. It appends "name:test_id" to the
# workspace's hooks.log, refuses before_each of t2 and after_each of t4, and after_all saves
# what it was told on stdin beside the eval file.
name="$1"
in=$(cat)
id=$(printf %s "$in" | sed -n 's/.*"test_id": *"\([^"]*\)".*/\1/p')
case "$name:$id" in
  before:t2|after:t4) echo "hook refused $id" >&2; exit 1 ;;
esac
if [ "$name" = after_all ]; then
  printf '%s\n' "$in" > after_all.json
  exit 0
fi
printf '%s:%s ' "$name" "$id" >> "$2/hooks.log"
