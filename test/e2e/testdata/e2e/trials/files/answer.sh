# Answers from a fixed sequence per question, advancing a counter file beside it on every call,
# so trials of one case get different answers: a question naming "flip" alternates "alpha" and
# "alpha beta", one naming "pattern" cycles "alpha", "alpha beta", "none", "alpha beta", one
# naming "steady" cycles "alpha beta", "alpha beta", "alpha", "alpha beta", "alpha beta",
# "alpha"; anything else always answers "alpha beta".
key=$(printf %s "$1" | tr -cd 'a-z' | cut -c1-40)
f="$(dirname "$0")/counter-$key"
n=$(cat "$f" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$f"
case "$key" in
  *pattern*) seq="alpha|alpha beta|none|alpha beta" ;;
  *steady*) seq="alpha beta|alpha beta|alpha|alpha beta|alpha beta|alpha" ;;
  *flip*) seq="alpha|alpha beta" ;;
  *) seq="alpha beta" ;;
esac
i=$(( (n-1) % $(printf %s "$seq" | awk -F'|' '{print NF}') + 1 ))
printf %s "$seq" | cut -d'|' -f$i
