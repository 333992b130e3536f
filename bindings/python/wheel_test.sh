#!/bin/bash
# The wheel as a user installs it, with no Bazel and no source tree on the paths:
#   wheel_test.sh WHEEL NAME_FILE MPIRUN_SH PROGRAM
# In a temporary directory outside the tree: a fresh venv, `pip install --no-index` of
# the wheel (under its proper name, from NAME_FILE), checks that the extension loads the
# bundled libtessera through RUNPATH $ORIGIN, then PROGRAM (wheel_test_program.py) under
# tools/mpirun.sh on 1 and 3 ranks: exit status 0, every rank's "ok", no Open MPI banner.
set -euo pipefail
wheel="$(realpath "$1")"
name="$(cat "$2")"
mpirun_sh="$(realpath "$3")"
program="$(realpath "$4")"

fail() {
  echo "FAIL: $*"
  exit 1
}

# Bazel's test environment has no HOME; Open MPI wants a short TMPDIR for its sockets.
export HOME="${HOME:-/tmp}" TMPDIR=/tmp
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1
unset PYTHONPATH PYTHONHOME LD_LIBRARY_PATH
work="$(mktemp -d /tmp/tessera_wheel_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/dist"
cp "$wheel" "$work/dist/$name"
cp "$program" "$work/prog.py"
cd "$work"

# The venvs get no pip of their own (ensurepip alone takes 30 s on a busy machine):
# Debian's pip (python3-pip) installs into them, as `pip --python VENV_PYTHON`.
# Requires-Dist: numpy holds: without numpy in reach, --no-index cannot install the wheel.
/usr/bin/python3 -m venv --without-pip bare
if /usr/bin/python3 -m pip --python bare/bin/python install --no-index dist/*.whl \
  >bare.out 2>&1; then
  fail "the wheel installed where numpy is not available: $(cat bare.out)"
fi
grep -q "numpy" bare.out || fail "pip failed for another reason than numpy: $(cat bare.out)"

# The only numpy available offline is Debian's python3-numpy, so the venv sees the
# system's site-packages (nothing of Tessera is there).
/usr/bin/python3 -m venv --without-pip --system-site-packages venv
/usr/bin/python3 -m pip --python venv/bin/python install --no-index dist/*.whl
/usr/bin/python3 -m pip --python venv/bin/python show tessera-runtime >show.out
grep -qx "Requires: numpy" show.out ||
  fail "pip show: the installed distribution does not require numpy"
site="$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
extension="$site/tessera/_tessera_capi.so"
readelf -d "$extension" | grep -q 'RUNPATH.*\[\$ORIGIN\]$' ||
  fail "the extension's RUNPATH is not \$ORIGIN: $(readelf -d "$extension" | grep PATH)"
needed="$(readelf -d "$extension" | sed -n 's/.*(NEEDED).*\[\(libtessera[^]]*\)\]/\1/p')"
[ -n "$needed" ] && [ -f "$site/tessera/$needed" ] ||
  fail "the extension needs '$needed', which the wheel does not carry beside it"
loaded="$(venv/bin/python -c '
import tessera
print(next(line.split()[-1] for line in open("/proc/self/maps") if "/libtessera.so" in line))')"
[ "$loaded" = "$site/tessera/$needed" ] || fail "libtessera loaded from $loaded"
echo "installed: $site/tessera (extension needs $needed, RUNPATH \$ORIGIN)"

export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1
for np in 1 3; do
  set +e
  timeout --signal=KILL 120 "$mpirun_sh" -np "$np" "$work/venv/bin/python" prog.py >out 2>&1
  rc=$?
  set -e
  cat out
  [ "$rc" -eq 0 ] || fail "mpirun -np $np exited with status $rc"
  if grep -qiE "improperly|did not call .?finalize|mpirun (noticed|has exited)|^-{20,}" out; then
    fail "Open MPI printed a banner on $np ranks"
  fi
  for ((r = 0; r < np; r++)); do
    grep -qx "rank $r of $np: ok" out || fail "rank $r of $np did not print its ok"
  done
  echo "PASS: $np ranks, exit status 0, no banner"
done
