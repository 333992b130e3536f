#!/usr/bin/env bash
# Runs an MPI program across K emulated hosts on this machine, then removes them.
#
#   tools/multihost.sh [--hosts K] [--ranks-per-host N] [--rate RATE] [--delay D]
#                      [--timeout S] [--btl LIST] [--env NAME]... -- PROGRAM [ARGS...]
#
# Each host is a network namespace with its own hostname (a UTS namespace), joined to
# the others by a bridge and veth pairs: to Open MPI 4.1 they are separate machines.
# Ranks on one host talk over shared memory (vader), ranks on different hosts over TCP
# across the veths; MPI_COMM_TYPE_SHARED splits per host, MPI_Get_processor_name
# differs. mpirun stays in the root namespace and starts one daemon per host through
# this script (Open MPI's rsh agent), so no ssh is involved. Ranks are placed by block:
# ranks 0..N-1 on host 1, the next N on host 2, and so on; every rank gets
# TESSERA_TEST_HOSTS=K and TESSERA_TEST_RANKS_PER_HOST=N, so tests can expect the hosts
# without asking the code they test. The program's exit status is this script's (124
# when --timeout expired).
#
# Everything it creates (namespaces, bridge, veths, /etc/netns entries, shaping) carries
# a slot number unique among concurrent runs and is removed on exit, whether the program
# passed, failed, timed out or this script was interrupted; a run killed outright
# (SIGKILL) leaves its slot to the next run, which clears it first. Only addresses inside
# 10.79.<slot>.0/24, on interfaces it made, are used. Needs root, iproute2, util-linux
# (unshare), Open MPI 4.x.
#
#   --hosts K           hosts (default 2)
#   --ranks-per-host N  ranks on each host (default 1); mpirun -np K*N
#   --rate RATE         shape each host's link to RATE in each direction (tc tbf syntax:
#                       1gbit, 100mbit); default unshaped (veth TCP at memory speed)
#   --delay D           hold every packet leaving a host D (500us, 1ms), so a round
#                       trip between hosts takes 2 x D more; this kernel has no
#                       sch_netem, so an iptables NFQUEUE rule hands packets to
#                       tools/nfq_delay.py inside each host (needs Debian's iptables)
#   --timeout S         kill the run after S seconds (default 120)
#   --btl LIST          Open MPI transports (default tcp,vader,self; tcp,self forces
#                       TCP between ranks of one host too)
#   --env NAME          give every rank this script's NAME (mpirun -x NAME; a host's
#                       daemon does not inherit the launching shell's environment):
#                       PYTHONPATH for Python programs, TEST_TMPDIR for a shared
#                       directory; repeatable
#   --enable-recovery   mpirun keeps the other ranks running when one dies (for fault
#                       tests: the survivors report; docs/reliability.md)
#   --tear-down-last-host-when FILE
#                       as soon as FILE exists, take the last host off the network (its
#                       link down at both ends) and kill every process on it: a machine
#                       vanishing mid-run, for fault tests
#
# docs/multihost.md says how the tests use it and how to run Tessera on real hosts.
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
# Root's tools (ip, tc, iptables) live in sbin, which a test's PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"
state_root=/run/tessera-multihost

# Open MPI's rsh agent: `multihost.sh agent HOST word...`, the words a command line for
# a remote shell. Runs it inside HOST's namespace with HOST as the hostname, which
# keeps Open MPI's per-host files (/dev/shm segments, /tmp session dirs) apart.
if [ "${1:-}" = agent ]; then
  host=$2
  shift 2
  exec ip netns exec "$host" unshare --uts -- /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' \
    "$host" "$*"
fi

hosts=2 per_host=1 rate="" delay="" timeout_s=120 btl="tcp,vader,self" mpirun_flags=() tear_down_when=""
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --ranks-per-host) per_host=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --btl) btl=$2; shift 2 ;;
    --enable-recovery) mpirun_flags+=(--enable-recovery); shift ;;
    --env)
      [[ "${2:-}" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] ||
        { echo "multihost.sh: --env needs a variable name, got '${2:-}'" >&2; exit 2; }
      mpirun_flags+=(-x "$2"); shift 2 ;;
    --tear-down-last-host-when) tear_down_when=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "multihost.sh: unknown option '$1' (see the header of $self)" >&2; exit 2 ;;
  esac
done
[ $# -ge 1 ] || { echo "multihost.sh: no program given (... -- PROGRAM [ARGS])" >&2; exit 2; }
[[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 16 ] ||
  { echo "multihost.sh: --hosts must be 1..16, got '$hosts'" >&2; exit 2; }
[[ "$per_host" =~ ^[0-9]+$ ]] && [ "$per_host" -ge 1 ] && [ "$per_host" -le 16 ] ||
  { echo "multihost.sh: --ranks-per-host must be 1..16, got '$per_host'" >&2; exit 2; }
[[ "$timeout_s" =~ ^[0-9]+$ ]] && [ "$timeout_s" -ge 1 ] ||
  { echo "multihost.sh: --timeout must be a positive number of seconds, got '$timeout_s'" >&2; exit 2; }
delay_us=""
if [ -n "$delay" ]; then
  delay_us=$(awk -v d="$(echo "$delay" | tr 'A-Z' 'a-z')" 'BEGIN { n = d + 0; u = d; sub(/^[0-9.]+/, "", u);
    m["us"] = 1; m["ms"] = 1000; m["s"] = 1e6; if (!(u in m) || n <= 0 || n * m[u] > 1e6) exit 1;
    printf "%d", n * m[u] }') || { echo "multihost.sh: bad --delay '$delay' (e.g. 1ms, 500us; at most 1s)" >&2; exit 2; }
  iptables=$(command -v iptables-legacy || command -v iptables || true)
  [ -n "$iptables" ] || { echo "multihost.sh: --delay needs iptables (apt-get install iptables)" >&2; exit 2; }
fi
[ "$(id -u)" = 0 ] || { echo "multihost.sh: needs root (network namespaces)" >&2; exit 2; }

# Names of slot $1's objects. Interface names stay within 15 characters.
bridge_of() { echo "tmb$1"; }
host_of() { echo "tmh$1n$2"; }   # namespace name == hostname
veth_of() { echo "tmv$1n$2"; }

# Removes everything slot $1 may have made. Safe to run on a partly made or clean slot.
clear_slot() {
  local slot=$1 ns pids link
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^tmh${slot}n[0-9]+$" || true); do
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    [ -z "${pids// /}" ] || kill -9 $pids 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true  # also removes its veth end and the peer
    rm -rf "/etc/netns/$ns"
  done
  # The kernel frees a deleted namespace (and its veth ends) asynchronously: delete the
  # root-side ends now, which takes each pair with it, so the slot's names are free at
  # once for the next run.
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
    grep -E "^tmv${slot}n[0-9]+$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$(bridge_of "$slot")" 2>/dev/null || true
}

# A free slot: the first whose directory we create (mkdir is atomic); a slot whose
# owner died is cleared and taken over.
mkdir -p "$state_root"
slot=""
for s in $(seq 1 200); do
  dir=$state_root/$s
  if mkdir "$dir" 2>/dev/null; then slot=$s; break; fi
  owner=$(cat "$dir/pid" 2>/dev/null || true)
  if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null && rm -rf "$dir" && mkdir "$dir" 2>/dev/null; then
    clear_slot "$s"
    slot=$s
    break
  fi
done
[ -n "$slot" ] || { echo "multihost.sh: no free slot under $state_root" >&2; exit 1; }
echo $$ > "$state_root/$slot/pid"
watcher=""
cleanup() {
  [ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
  clear_slot "$slot"
  rm -rf "${state_root:?}/$slot"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

net=10.79.$slot
bridge=$(bridge_of "$slot")
ip link add "$bridge" type bridge
ip addr add "$net.1/24" dev "$bridge"
ip link set "$bridge" up
hostfile=$state_root/$slot/hostfile
: > "$hostfile"
for i in $(seq 1 "$hosts"); do
  ns=$(host_of "$slot" "$i")
  veth=$(veth_of "$slot" "$i")
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$bridge" up
  ip -n "$ns" addr add "$net.$((10 + i))/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  echo "$ns slots=$per_host" >> "$hostfile"
  if [ -n "$rate" ]; then
    # tbf on both ends of the host's link: the bridge side shapes traffic into the
    # host, eth0 traffic out of it. A burst of >= 256 KiB lets 64 KiB GSO packets
    # through whole; the queue holds ~50 ms.
    bps=$(awk -v r="$(echo "$rate" | tr 'A-Z' 'a-z')" 'BEGIN { n = r + 0; u = r; sub(/^[0-9.]+/, "", u);
      m["kbit"] = 1e3; m["mbit"] = 1e6; m["gbit"] = 1e9; if (!(u in m) || n <= 0) exit 1;
      printf "%d", n * m[u] / 8 }') || { echo "multihost.sh: bad --rate '$rate' (e.g. 1gbit)" >&2; exit 2; }
    burst=$((bps / 500)); [ "$burst" -ge 262144 ] || burst=262144
    limit=$((bps / 20)); [ "$limit" -ge $((4 * burst)) ] || limit=$((4 * burst))
    tc qdisc replace dev "$veth" root tbf rate "$rate" burst "$burst" limit "$limit"
    tc -n "$ns" qdisc replace dev eth0 root tbf rate "$rate" burst "$burst" limit "$limit"
  fi
done
# The delay line: every packet leaving a host's eth0 waits in tools/nfq_delay.py, run
# inside the host so clear_slot kills it with the host's other processes.
if [ -n "$delay_us" ]; then
  for i in $(seq 1 "$hosts"); do
    ns=$(host_of "$slot" "$i")
    ready=$state_root/$slot/delay.$i
    ip netns exec "$ns" "$iptables" -t mangle -A POSTROUTING -o eth0 -j NFQUEUE --queue-num 0 --queue-bypass
    # Above the ranks' priority: busy-polling ranks would otherwise add jitter.
    # In a subshell: not this script's job, so its death on clean-up goes unreported.
    (nice -n -10 ip netns exec "$ns" python3 "$(dirname "$self")/nfq_delay.py" 0 "$delay_us" "$ready" \
      < /dev/null 2> "$state_root/$slot/delay.$i.log" &)
    for _ in $(seq 1 100); do [ -s "$ready" ] && break; sleep 0.05; done
    [ -s "$ready" ] || { echo "multihost.sh: the delay line of $ns did not start: $(cat "$state_root/$slot/delay.$i.log")" >&2; exit 1; }
  done
fi
# Each host resolves every host's name (ip netns exec mounts /etc/netns/NS/hosts).
for i in $(seq 1 "$hosts"); do
  ns=$(host_of "$slot" "$i")
  mkdir -p "/etc/netns/$ns"
  {
    echo "127.0.0.1 localhost"
    for j in $(seq 1 "$hosts"); do echo "$net.$((10 + j)) $(host_of "$slot" "$j")"; done
  } > "/etc/netns/$ns/hosts"
done
for i in $(seq 1 "$hosts"); do  # veths come up asynchronously
  for _ in $(seq 1 50); do
    ip -n "$(host_of "$slot" "$i")" -br link show eth0 | grep -q UP && break
    sleep 0.1
  done
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent="$self agent"
export OMPI_MCA_plm_rsh_no_tree_spawn=1
# Control and data planes only on this slot's subnet: mpirun's root namespace also has
# the machine's real interfaces, and loopback would let TCP skip the shaped links.
export OMPI_MCA_oob_tcp_if_include="$net.0/24"
export OMPI_MCA_btl_tcp_if_include="$net.0/24"
export OMPI_MCA_btl="$btl"
# Every daemon believes it owns the machine and would pin its first rank to core 0.
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
export HOME="${HOME:-/tmp}"

# The fault watcher: polls for the file (bounded by the run's timeout), then unplugs
# and empties the last host. Killed with the slot on exit.
if [ -n "$tear_down_when" ]; then
  (
    last=$(host_of "$slot" "$hosts")
    for _ in $(seq 1 $((timeout_s * 100))); do
      [ -e "$tear_down_when" ] && break
      sleep 0.01
    done
    [ -e "$tear_down_when" ] || exit 0
    ip link set "$(veth_of "$slot" "$hosts")" down
    ip -n "$last" link set eth0 down
    pids=$(ip netns pids "$last" | tr '\n' ' ')
    [ -z "${pids// /}" ] || kill -9 $pids 2>/dev/null
    echo "multihost.sh: host $last taken off the network and its processes killed" >&2
  ) &
  watcher=$!
fi

set +e
export TESSERA_TEST_HOSTS="$hosts" TESSERA_TEST_RANKS_PER_HOST="$per_host"
timeout --signal=KILL "$timeout_s" mpirun --hostfile "$hostfile" --map-by slot ${mpirun_flags[@]+"${mpirun_flags[@]}"} \
  -x TESSERA_TEST_HOSTS -x TESSERA_TEST_RANKS_PER_HOST \
  -np "$((hosts * per_host))" "$@"
rc=$?
set -e
[ "$rc" -eq 137 ] && { echo "multihost.sh: the run took longer than ${timeout_s} s; killed" >&2; rc=124; }
exit "$rc"
