#!/usr/bin/env bash
# Prepares one run of Tessera's GPU tests and benchmarks on a lent GPU machine, which has
# the NVIDIA driver, the CUDA 13 libraries and NCCL but no Bazel, no Open MPI and no
# network (the development tree's ../shared/gpu/README.md). Builds the CUDA binaries
# optimised (--config=cuda -c opt), and lays out gpu/ (ignored by git):
#
#   gpu/payload.tar.xz   bin/ (the binaries, bench/gpu/torch_bench.py), lib/ (the shared
#                        libraries they load that the GPU image lacks), debs/ (Open MPI
#                        from Debian, unpacked there without root)
#   gpu/runs.txt         NP COMMAND per line: every MPI test binary at 1, 2 and 3 ranks
#                        (ranks share the one GPU, so multi-rank NCCL cases skip, saying
#                        so), the single-process tests at 1, and the benchmarks (gpu_bench,
#                        the training step eager vs plan on cuda, PyTorch's rows)
#   gpu/device_run.sh    the runner (from ../shared/gpu)
#
# Then, with the device tool: `bash gpu/device_run.sh` carrying gpu/. docs/gpu.md,
# "Testing on GPUs". Usage: tools/gpu_payload.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

mpi_tests=(
  //tests/eager:cuda_eager_test_bin
  //tests/boxing:device_boxing_test_bin
  //tests/plan:cuda_plan_test_bin
  //core/comm/nccl:nccl_communicator_test_bin
)
single_tests=(
  //kernels/cuda:cuda_kernels_test
  //kernels/cuda:cuda_no_alloc_test
  //tests/eager:cuda_apply_alloc_test_bin
  //tests/capi:cuda_info_capi_test
  //core/plan:register_manager_cuda_test
  //core/memory:cuda_allocator_test
  //core/device:cuda_test
  //core/device:pinned_staging_test
  //core/device:host_copy_test
  //core/comm/nccl:strided_copy_test
)
benches=(//bench/gpu:gpu_bench //bench/train_plan:train_plan_bench //bench/memory:host_copy_bench)

if [ "${1:-}" != "--no-build" ]; then
  bazel build --config=cuda -c opt "${mpi_tests[@]}" "${single_tests[@]}" "${benches[@]}" >&2
fi
out="$(bazel info --config=cuda -c opt bazel-bin 2>/dev/null)"
stage=gpu/stage
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/debs"

binary_of() {  # //pkg:name -> path under bazel-bin
  local label=${1#//}
  echo "$out/${label%%:*}/${label##*:}"
}

for label in "${mpi_tests[@]}" "${single_tests[@]}" "${benches[@]}"; do
  install -m 755 "$(binary_of "$label")" "$stage/bin/"
done
install -m 644 bench/gpu/torch_bench.py "$stage/bin/"

# Libraries: every one the binaries load from Bazel's output tree (libtessera and the
# per-target libraries of dynamically linked tests) and from Debian packages the GPU
# image does not have. The C library, libstdc++, CUDA, cuBLAS and NCCL are there; Open
# MPI comes from the debs.
# ldd reads the binaries where Bazel left them: their RUNPATHs find the per-target
# libraries of dynamically linked tests there, not in the staged copies.
built=()
for label in "${mpi_tests[@]}" "${single_tests[@]}" "${benches[@]}"; do
  built+=("$(binary_of "$label")")
done
{ ldd "${built[@]}" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  while read -r lib; do
    case "$lib" in
      "$out"/* | */bazel-out/* | */libopenblas* | */libgfortran* | */libquadmath* | */libgtest* | \
        */libgmock*)
        install -m 644 "$(readlink -f "$lib")" "$stage/lib/$(basename "$lib")"
        ;;
    esac
  done
strip --strip-unneeded "$stage"/bin/*_test* "$stage"/bin/*_bench "$stage"/lib/*.so* 2>/dev/null || true

# Open MPI and what it loads, from Debian's archive (cached between runs).
debs_cache="${HOME}/.cache/tessera/gpu-debs"
mkdir -p "$debs_cache"
(cd "$debs_cache" && [ -n "$(ls ./*.deb 2>/dev/null)" ] || apt-get download openmpi-bin \
  openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 \
  libfabric1 libucx0 libpsm2-2 libpsm-infinipath1 librdmacm1 libibverbs1 libnl-3-200 \
  libnl-route-3-200 libnuma1 libxnvctrl0 libltdl7 >&2)
cp "$debs_cache"/*.deb "$stage/debs/"

{
  echo "# NP COMMAND (written by tools/gpu_payload.sh)"
  for label in "${single_tests[@]}"; do echo "1 bin/$(basename "$(binary_of "$label")")"; done
  for np in 1 2 3; do
    for label in "${mpi_tests[@]}"; do echo "$np bin/$(basename "$(binary_of "$label")")"; done
  done
  echo "1 bin/gpu_bench"
  # The pageable rows with one copy thread (the copies before core/device/host_copy.h).
  echo "1 env TESSERA_COPY_THREADS=1 bin/gpu_bench"
  echo "1 bin/host_copy_bench"
  echo "1 bin/train_plan_bench 10 1024 5 cuda"
  echo "1 bin/train_plan_bench 10 256 5 cuda"
  # Data-parallel on one shared GPU: host-staged gradient boxing between CUDA graphs.
  echo "2 bin/train_plan_bench 10 1024 5 cuda"
  echo "1 bin/train_plan_bench 10 1024 5 cpu"
  echo "3 bin/train_plan_bench 10 1024 5 cpu"
  echo "1 python3 bin/torch_bench.py"
} > gpu/runs.txt

tar cJf gpu/payload.tar.xz -C "$stage" .
cp ../shared/gpu/device_run.sh gpu/ 2>/dev/null ||
  echo "gpu_payload: ../shared/gpu/device_run.sh not found; copy a runner to gpu/" >&2
# The shared runner reads runs.txt on the loop's stdin, which mpirun also reads (and
# forwards to rank 0): the first run swallowed the rest. Each run gets /dev/null instead.
[ -f gpu/device_run.sh ] && chmod u+w gpu/device_run.sh &&
  sed -i 's|\$MPI -np "\$np" \$cmd) >|$MPI -np "$np" $cmd) </dev/null >|' gpu/device_run.sh
grep -qx '/gpu/' .git/info/exclude 2>/dev/null || echo '/gpu/' >> .git/info/exclude
echo "gpu_payload: gpu/payload.tar.xz $(du -h gpu/payload.tar.xz | cut -f1), $(grep -vc '^#' gpu/runs.txt) runs"
