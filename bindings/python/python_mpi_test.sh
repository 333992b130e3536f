#!/bin/bash
# Runs a Python script under mpirun:
#   python_mpi_test.sh N MPIRUN_TEST_SH SCRIPT TESSERA_INIT_PY
# TESSERA_INIT_PY is the package's pkg/tessera/__init__.py in the runfiles; its
# grandparent folder goes on PYTHONPATH, and so does the script's runfiles folder,
# for the test's helper modules.
set -euo pipefail
np="$1"
launcher="$2"
script="$3"
pkg="$(cd "$(dirname "$4")/.." && pwd)"
here="$(cd "$(dirname "$script")" && pwd)"
export PYTHONPATH="$pkg:$here${PYTHONPATH:+:$PYTHONPATH}"
exec "$launcher" "$np" /usr/bin/python3 "$script"
