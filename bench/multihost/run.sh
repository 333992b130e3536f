#!/bin/bash
# Hierarchical all-reduce across emulated hosts (tools/multihost.sh: network
# namespaces, each host's link shaped with tc tbf), against Open MPI's MPI_Allreduce and
# Tessera's flat all-reduce over the same ranks, 1 / 16 / 64 MB f32: the hierarchical
# section of bench/comm/comm_bench.cc on real hosts. JSON lines, one per case; "ratio"
# is hierarchical time / baseline time (below 1: hierarchical is faster).
#
# Usage: bench/multihost/run.sh [LINK ...]   (default: 1gbit 1gbit+1ms)
# LINK is RATE, RATE+DELAY or DELAY alone (+1ms), or "none" (unshaped): RATE shapes each
# host's link with tc tbf, DELAY holds every packet leaving a host that long
# (tools/multihost.sh --delay: an NFQUEUE delay line, as this kernel has no sch_netem).
# Layouts: 2 hosts x 2 ranks and 3 hosts x 2 ranks, for the all-reduce and then for
# (P, P) -> (B, B) boxing on the host grid (grid_boxing_bench.cc). Usage for the grid
# alone: GRID_ONLY=1 bench/multihost/run.sh ... docs/multihost.md,
# "Benchmarks".
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/comm:comm_bench //bench/multihost:grid_boxing_bench >&2
out="$(bazel info -c opt bazel-bin 2>/dev/null)"
bin="$out/bench/comm/comm_bench"
grid="$out/bench/multihost/grid_boxing_bench"
[ $# -gt 0 ] || set -- 1gbit 1gbit+1ms
for link in "$@"; do
  shaping=()
  rate=${link%%+*} delay=""
  [[ "$link" == *+* ]] && delay=${link#*+}
  [ -n "$rate" ] && [ "$rate" != "none" ] && shaping+=(--rate "$rate")
  [ -n "$delay" ] && shaping+=(--delay "$delay")
  layouts=("2 2" "3 2")
  [ -z "${GRID_ONLY:-}" ] || layouts=()
  for layout in ${layouts[@]+"${layouts[@]}"}; do
    read -r hosts per_host <<<"$layout"
    tools/multihost.sh --hosts "$hosts" --ranks-per-host "$per_host" "${shaping[@]}" --timeout 900 \
      -- "$bin" hierarchical |
      sed -u "s/^{/{\"link\": \"$link\", /"
  done
  for hosts in 2 3; do
    tools/multihost.sh --hosts "$hosts" --ranks-per-host 2 "${shaping[@]}" --timeout 900 -- "$grid" |
      sed -u "s/^{/{\"link\": \"$link\", /"
  done
done
