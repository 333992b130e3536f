#!/usr/bin/env bash
# mpirun with the flags this project's machines need: --allow-run-as-root when run
# as root, --oversubscribe so N ranks may exceed the cores, and shared-memory
# transport on one host. Usage: tools/mpirun.sh -np N program [args...]
set -euo pipefail
flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" = 0 ]; then flags+=(--allow-run-as-root); fi
export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}"
# Keep the shared-memory segment in the (possibly sandboxed) temp dir.
export OMPI_MCA_orte_tmpdir_base="${OMPI_MCA_orte_tmpdir_base:-${TMPDIR:-/tmp}}"
exec mpirun "${flags[@]}" "$@"
