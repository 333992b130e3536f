#!/bin/bash
# Runs a Python script under mpirun:
#   python_mpi_test.sh N MPIRUN_TEST_SH SCRIPT TESSERA_PY
# TESSERA_PY's runfiles folder also holds _tessera.so and the test's helper modules;
# it goes on PYTHONPATH (the script's own folder does not do: Python resolves the
# script's symlink to the source tree).
set -euo pipefail
np="$1"
launcher="$2"
script="$3"
export PYTHONPATH="$(cd "$(dirname "$4")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
exec "$launcher" "$np" /usr/bin/python3 "$script"
