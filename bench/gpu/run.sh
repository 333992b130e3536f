#!/bin/bash
# Builds the GPU benchmark optimised and runs it on one rank, printing its JSON lines;
# then, where PyTorch with CUDA is importable (a bench virtualenv, or the GPU machine's
# own Python), the same calls in PyTorch (torch_bench.py). On a lent GPU machine, which
# has no Bazel, carry the built binary instead (../shared/gpu/README.md) and run both.
# Usage: bench/gpu/run.sh [PYTHON]   (default: python3)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build --config=cuda -c opt //bench/gpu:gpu_bench >&2
bin="$(bazel info --config=cuda -c opt bazel-bin 2>/dev/null)/bench/gpu/gpu_bench"
export OMPI_MCA_mpi_yield_when_idle=1
"$bin"
python="${1:-python3}"
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  "$python" bench/gpu/torch_bench.py
else
  echo '{"bench": "gpu/torch", "skipped": "no PyTorch with CUDA in '"$python"'"}'
fi
