// Could a strided all-to-all reach the contiguous one's time? The geometry of
// S(0) -> S(1) for an f32 [r, r] on n local ranks: rank p holds rows [p r/n, (p+1) r/n)
// and sends rank q the strided column block q of them (runs of r/n floats at a stride of
// r), which lands contiguously in q's [r, r/n] output. Four ways, in rotating order, each
// sample the slowest rank's time between barriers:
//
//   contiguous   MPI_Alltoall of contiguous blocks of the same size (moves other bytes:
//                the baseline boxing_bench's strided rows are compared with)
//   alltoallw    MPI_Alltoallw with subarray types (what Tessera's AllToAllBlocks does)
//   pack         pack every send block into a buffer, then MPI_Alltoall
//   cma_push     single copy: the ranks exchange (pid, output address) with
//                MPI_Allgather, each writes its strided rows straight into each peer's
//                contiguous output with process_vm_writev (local iovecs strided, one
//                remote iovec), copies its own block, then MPI_Barrier
//
// Not a Tessera code path: a measurement kept so the numbers in docs/boxing.md ("Strided
// blocks") can be reproduced. Sides 512, 516, 2048, 2052, 4096, 4104 where n divides
// them. JSON lines, one per way and size:
//   {"bench": "single_copy/<way>/f32/<KiB>KiB_side<r>/np<n>", "value": ms, "unit": "ms",
//    "baseline": contiguous ms, "ratio": value / baseline}
// Usage: mpirun -np N single_copy_bench [SCALE]   (SCALE times the samples)
#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/boxing/mpi_timing.h"

namespace tessera {
namespace {

using bench::CheckMpi;
using bench::Median;
using bench::TimeOnce;

void Die(const char* what, int rank) {
  std::fprintf(stderr, "single_copy_bench: %s on rank %d\n", what, rank);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void RunSize(const char* label, int64_t side, int samples, int n, int me) {
  const int64_t rows = side / n, cols = side / n;  // my input rows; my output columns
  const int64_t block = rows * cols;               // elements per peer
  std::vector<float> in(rows * side), out(side * cols), packed(rows * side);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(me * 1000003 + k % 999983);

  // Subarray types for MPI_Alltoallw: column block q of my rows; row block q of my output.
  std::vector<MPI_Datatype> send_types(n), recv_types(n);
  std::vector<int> ones(n, 1), zeros(n, 0);
  for (int q = 0; q < n; ++q) {
    const int in_sizes[2] = {static_cast<int>(rows), static_cast<int>(side)};
    const int out_sizes[2] = {static_cast<int>(side), static_cast<int>(cols)};
    const int sub[2] = {static_cast<int>(rows), static_cast<int>(cols)};
    const int in_start[2] = {0, static_cast<int>(q * cols)};
    const int out_start[2] = {static_cast<int>(q * rows), 0};
    CheckMpi(MPI_Type_create_subarray(2, in_sizes, sub, in_start, MPI_ORDER_C, MPI_FLOAT,
                                      &send_types[q]),
             "MPI_Type_create_subarray");
    CheckMpi(MPI_Type_create_subarray(2, out_sizes, sub, out_start, MPI_ORDER_C, MPI_FLOAT,
                                      &recv_types[q]),
             "MPI_Type_create_subarray");
    CheckMpi(MPI_Type_commit(&send_types[q]), "MPI_Type_commit");
    CheckMpi(MPI_Type_commit(&recv_types[q]), "MPI_Type_commit");
  }

  auto copy_rows = [&](int q, float* dst) {  // my strided block q into contiguous dst
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(dst + r * cols, in.data() + r * side + q * cols, cols * sizeof(float));
    }
  };
  struct Peer {
    int64_t pid;
    uint64_t out;
  };
  std::vector<Peer> peers(n);
  std::vector<iovec> local(rows);
  const std::function<void()> ways[4] = {
      [&] {
        CheckMpi(MPI_Alltoall(in.data(), static_cast<int>(block), MPI_FLOAT, out.data(),
                              static_cast<int>(block), MPI_FLOAT, MPI_COMM_WORLD),
                 "MPI_Alltoall");
      },
      [&] {
        CheckMpi(MPI_Alltoallw(in.data(), ones.data(), zeros.data(), send_types.data(), out.data(),
                               ones.data(), zeros.data(), recv_types.data(), MPI_COMM_WORLD),
                 "MPI_Alltoallw");
      },
      [&] {
        for (int q = 0; q < n; ++q) copy_rows(q, packed.data() + q * block);
        CheckMpi(MPI_Alltoall(packed.data(), static_cast<int>(block), MPI_FLOAT, out.data(),
                              static_cast<int>(block), MPI_FLOAT, MPI_COMM_WORLD),
                 "MPI_Alltoall");
      },
      [&] {
        const Peer mine{static_cast<int64_t>(getpid()), reinterpret_cast<uint64_t>(out.data())};
        CheckMpi(MPI_Allgather(&mine, sizeof(Peer), MPI_BYTE, peers.data(), sizeof(Peer), MPI_BYTE,
                               MPI_COMM_WORLD),
                 "MPI_Allgather");
        for (int k = 1; k < n; ++k) {
          const int q = (me + k) % n;
          // At most IOV_MAX (1024) iovecs per call.
          for (int64_t r0 = 0; r0 < rows; r0 += 1024) {
            const int64_t count = std::min<int64_t>(1024, rows - r0);
            for (int64_t r = 0; r < count; ++r) {
              local[r] = {in.data() + (r0 + r) * side + q * cols, cols * sizeof(float)};
            }
            const size_t bytes = count * cols * sizeof(float);
            iovec remote{
                reinterpret_cast<char*>(peers[q].out) + (me * block + r0 * cols) * sizeof(float),
                bytes};
            if (process_vm_writev(static_cast<pid_t>(peers[q].pid), local.data(), count, &remote, 1,
                                  0) != static_cast<ssize_t>(bytes)) {
              Die("process_vm_writev failed", me);
            }
          }
        }
        copy_rows(me, out.data() + me * block);
        CheckMpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      }};
  const char* names[4] = {"contiguous", "alltoallw", "pack", "cma_push"};

  // Every way but the contiguous one must produce S(1): row q * rows + r of my output is
  // rank q's row r, my columns.
  for (int w = 1; w < 4; ++w) {
    std::fill(out.begin(), out.end(), -1.0f);
    ways[w]();
    for (int q = 0; q < n; ++q) {
      for (int64_t r = 0; r < rows; r += 3) {
        for (int64_t c = 0; c < cols; c += 7) {
          const int64_t k = r * side + me * cols + c;
          const float want = static_cast<float>(q * 1000003 + k % 999983);
          if (out[(q * rows + r) * cols + c] != want) Die(names[w], me);
        }
      }
    }
  }
  std::vector<double> times[4];
  for (int w = 0; w < 4; ++w) TimeOnce(ways[w]);  // warm-up
  for (int i = 0; i < samples; ++i) {
    for (int k = 0; k < 4; ++k) {
      const int w = (i + k) % 4;
      times[w].push_back(TimeOnce(ways[w]));
    }
  }
  const double base_ms = Median(times[0]) * 1e3;
  for (int w = 0; w < 4 && me == 0; ++w) {
    const double ms = Median(times[w]) * 1e3;
    std::printf(
        "{\"bench\": \"single_copy/%s/f32/%s/np%d\", \"value\": %.4f, \"unit\": \"ms\", "
        "\"baseline\": %.4f, \"ratio\": %.3f}\n",
        names[w], label, n, ms, base_ms, ms / base_ms);
  }
  std::fflush(stdout);
  for (int q = 0; q < n; ++q) {
    MPI_Type_free(&send_types[q]);
    MPI_Type_free(&recv_types[q]);
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  struct Size {
    int64_t side;
    int samples;
  };
  // Pairs of nearby sides: the power of two boxing_bench uses and one a little larger
  // (block sizes of exactly 2^k bytes against not), where the rank count divides them.
  const Size sizes[] = {{512, 41}, {516, 41}, {2048, 15}, {2052, 15}, {4096, 7}, {4104, 7}};
  for (const Size& s : sizes) {
    if (s.side % n != 0) continue;
    const std::string label =
        std::to_string(s.side * s.side * 4 / 1024) + "KiB_side" + std::to_string(s.side);
    tessera::RunSize(label.c_str(), s.side, s.samples * scale, n, me);
  }
  MPI_Finalize();
  return 0;
}
