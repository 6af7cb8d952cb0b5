# Counts its calls in calls: the first answer lacks "beta", the others have it.
f="$(dirname "$0")/calls"
n=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
echo $n > "$f"
if [ $n = 1 ]; then echo alpha; else echo "alpha beta"; fi
