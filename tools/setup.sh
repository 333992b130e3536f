#!/usr/bin/env bash
# Installs everything Tessera's build and tests need on a Debian 12 (bookworm) machine.
#
# Run as root: `bash tools/setup.sh`. Idempotent: when every package is already installed it
# touches neither apt nor the network, so re-runs are fast and work offline. Only Debian
# packages are installed; the build itself never downloads anything.
#
# The CUDA toolkit (nvcc, cudart, cuBLAS, NCCL) is not a Debian package: machines of this
# kind come with it at /usr/local/cuda. Without it only --config=cuda is unavailable, so its
# absence is a warning.
set -euo pipefail

# Package -> why the build or tests need it.
packages=(
  bazel-bootstrap      # Bazel 4.2.3
  bazel-skylib         # @bazel_skylib (WORKSPACE)
  bazel-platforms      # @platforms, for incompatible target skipping
  g++                  # C++17 toolchain; also nvcc's host compiler
  zip                  # Bazel zips undeclared test outputs
  unzip
  ca-certificates
  libopenmpi-dev       # @mpi headers and libmpi
  openmpi-bin          # mpirun for the multi-rank tests
  libopenblas-dev      # @system_libs//:openblas, <cblas.h>
  libgtest-dev         # @system_libs//:gtest_main
  libgmock-dev
  libbenchmark-dev     # bench/
  swig                 # bindings/ (Python, Java, Go)
  python3              # Bazel's Python toolchain (third_party/python)
  python3-dev          # Python.h for the SWIG Python extension
  python3-numpy        # Python binding tests
  python3-matplotlib   # examples/python/train: the loss and accuracy curves as a PNG
  default-jdk-headless # javac/jar/java for the Java binding
  golang-go            # Go binding
  clang-format         # formatting (.clang-format)
  clang                # tools/fuzz.sh: builds fuzz/ with --config=fuzz (libFuzzer needs clang)
  libclang-rt-14-dev   # libFuzzer and clang's ASan/UBSan runtimes (-fsanitize=fuzzer,...)
  abigail-tools        # abidw/abidiff: the C ABI baseline test (capi/abi)
  cmake                # the CMake consumer test (tests/packaging)
  pkg-config           # tessera.pc in the consumer tests (tests/packaging)
  dpkg-dev             # dpkg-shlibdeps: the .deb Depends (tools/package.sh)
  patchelf             # tools/build_wheel.sh: the wheel's extension gets RUNPATH $ORIGIN
  iproute2             # tools/multihost.sh: ip netns, veth, bridge, tc
  iptables             # tools/multihost.sh --delay (an NFQUEUE delay line; no sch_netem here)
)

is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == "installed" ]]
}

missing=()
for package in "${packages[@]}"; do
  is_installed "${package}" || missing+=("${package}")
done

if ((${#missing[@]} == 0)); then
  echo "setup.sh: all ${#packages[@]} Debian packages already installed; skipping apt."
else
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "setup.sh: must run as root to install: ${missing[*]}" >&2
    exit 1
  fi
  if [[ -r /etc/os-release ]]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    if [[ "${ID:-}" != "debian" || "${VERSION_ID:-}" != "12" ]]; then
      echo "setup.sh: warning: written for Debian 12, this is ${PRETTY_NAME:-unknown}" >&2
    fi
  fi
  echo "setup.sh: installing ${#missing[@]} missing package(s): ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  still_missing=()
  for package in "${missing[@]}"; do
    is_installed "${package}" || still_missing+=("${package}")
  done
  if ((${#still_missing[@]} > 0)); then
    echo "setup.sh: apt-get finished but these are not installed: ${still_missing[*]}" >&2
    exit 1
  fi
  echo "setup.sh: installed ${missing[*]}"
fi

cuda=/usr/local/cuda
if [[ -x "${cuda}/bin/nvcc" && -r "${cuda}/include/nccl.h" ]]; then
  echo "setup.sh: CUDA toolkit found at ${cuda} (nvcc $("${cuda}/bin/nvcc" --version |
    grep -o 'release [0-9.]*'))."
else
  echo "setup.sh: warning: no CUDA toolkit with NCCL at ${cuda} (need bin/nvcc and" \
    "include/nccl.h); --config=cuda will not build. Everything else is unaffected." >&2
fi

echo "setup.sh: done."
