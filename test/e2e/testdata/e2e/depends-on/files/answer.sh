# Writes the answer to a question into the output file ($1): "boom" fails (no answer), a
# question naming a test records that it ran in order.log, then answers "ok".
out="$1"; q="$2"
echo "$q" >> order.log
case "$q" in
  boom*) echo "the target failed on purpose" >&2; exit 3 ;;
  low*) printf 'nothing useful' > "$out" ;;
  *) printf 'ok' > "$out" ;;
esac
