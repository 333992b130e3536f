# Sourced by the fault test scripts. check_survivors DIR LAST: prints what ranks 0..LAST
# wrote to DIR/rank<R> (fault_test.cc) and returns 0 only when each wrote a PASS line.
check_survivors() {
  local dir=$1 last=$2 r status=0
  for ((r = 0; r <= last; r++)); do
    if [[ ! -f "$dir/rank$r" ]]; then
      echo "rank $r wrote no result"
      status=1
      continue
    fi
    echo "rank $r: $(cat "$dir/rank$r")"
    grep -q '^PASS ' "$dir/rank$r" || status=1
  done
  return "$status"
}
