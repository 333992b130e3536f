// CopyBox alone (the local copy of a boxing that moves nothing between ranks) against
// a memcpy of the same destination bytes, in one process, with MPI_Pack of an
// MPI_Type_vector (the raw MPI way to make the same strided copy) as an extra
// column. The geometry is that of 2d:(S(0),B)->(S(0),S(1)) on 4 ranks in
// boxing_bench: f32 [r, r], each rank copies a [r/2, r/2] column block out of its
// [r/2, r] piece (runs of r/2 floats, stride r), r = 512, 2048, 4096 and r + 1.
// A second line per size copies the same rows with stride = run (contiguous source
// cut into the same runs), which separates the cost of the gaps from that of the
// per-run calls. All three sides read `in` and write `out` (as boxing_bench does)
// and run in rotating order so none always follows another. Prints JSON lines:
//   {"bench": ..., "value": ms, "unit": "ms", "baseline": memcpy ms, "ratio": ...,
//    "mpi_pack": ms, "mpi_pack_ratio": mpi_pack / baseline}
// Usage: strided_copy_bench [SCALE]   (SCALE times the samples)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/common/timing.h"
#include "core/boxing/strided_copy.h"
#include "core/common/shape.h"

namespace tessera {
namespace {

using bench::Median;
using bench::Seconds;

void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "%s failed: %d\n", what, rc);
  std::exit(1);
}

// One size: rows x cols floats out of rows of `stride` floats.
void RunCase(const std::string& label, int64_t rows, int64_t cols, int64_t stride, int samples) {
  std::vector<float> in(rows * stride), out(rows * cols);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k % 1000);
  const Shape src{rows, stride}, dst{rows, cols};
  const int64_t zero[2] = {0, 0};
  const size_t bytes = out.size() * sizeof(float);
  MPI_Datatype vec;
  CheckMpi(MPI_Type_vector(static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(stride),
                           MPI_FLOAT, &vec),
           "MPI_Type_vector");
  CheckMpi(MPI_Type_commit(&vec), "MPI_Type_commit");
  const std::function<void()> sides[3] = {
      [&] { boxing::CopyBox(in.data(), src, zero, out.data(), dst, zero, dst, sizeof(float)); },
      [&] { std::memcpy(out.data(), in.data(), bytes); },
      [&] {
        int pos = 0;
        CheckMpi(
            MPI_Pack(in.data(), 1, vec, out.data(), static_cast<int>(bytes), &pos, MPI_COMM_SELF),
            "MPI_Pack");
      }};
  // The copy is right before the timing: check CopyBox and MPI_Pack once.
  for (int side : {0, 2}) {
    std::fill(out.begin(), out.end(), -1.0f);
    sides[side]();
    for (int64_t r = 0; r < rows; ++r) {
      if (std::memcmp(&out[r * cols], &in[r * stride], cols * sizeof(float)) != 0) {
        std::fprintf(stderr, "%s: side %d copied row %ld wrong\n", label.c_str(), side,
                     static_cast<long>(r));
        std::exit(1);
      }
    }
  }
  std::vector<double> times[3];
  for (int w = 0; w < 2; ++w)
    for (auto& side : sides) side();
  for (int i = 0; i < samples; ++i) {
    for (int k = 0; k < 3; ++k) {
      const int side = (i + k) % 3;
      const double start = Seconds();
      sides[side]();
      times[side].push_back(Seconds() - start);
    }
  }
  CheckMpi(MPI_Type_free(&vec), "MPI_Type_free");
  const double box = Median(times[0]) * 1e3, base = Median(times[1]) * 1e3,
               pack = Median(times[2]) * 1e3;
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.4f, \"unit\": \"ms\", \"baseline\": %.4f, \"ratio\": "
      "%.3f, \"mpi_pack\": %.4f, \"mpi_pack_ratio\": %.3f}\n",
      label.c_str(), box, base, box / base, pack, pack / base);
  std::fflush(stdout);
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  tessera::CheckMpi(MPI_Init(&argc, &argv), "MPI_Init");
  struct Size {
    const char* label;
    int64_t side;
    int samples;
  };
  const Size sizes[] = {{"1MB", 512, 2001}, {"16MB", 2048, 201}, {"64MB", 4096, 41}};
  for (const Size& size : sizes) {
    for (bool even : {true, false}) {
      const int64_t side = even ? size.side : size.side + 1;
      const int64_t half = (side + 1) / 2;  // the balanced split's first part
      const std::string label = std::string("strided_copy/f32/") + size.label + "/" +
                                (even ? "even" : "uneven") + "/run" + std::to_string(half * 4) +
                                "B";
      tessera::RunCase(label + "/stride" + std::to_string(side * 4) + "B", half, half, side,
                       size.samples * scale);
      tessera::RunCase(label + "/contiguous", half, half, half, size.samples * scale);
    }
  }
  tessera::CheckMpi(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
