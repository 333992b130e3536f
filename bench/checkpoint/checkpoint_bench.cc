// Checkpoint throughput (docs/checkpoints.md), printed by rank 0 as JSON lines {"bench",
// "value", "unit", "baseline", "ratio", ...}: each figure is the median of kReps timed
// samples, the slowest rank's, in MB/s of the logical tensor (64 MiB of f32 split S(0)
// over the world); its baseline is the same ranks writing (write + fsync) or reading
// their own bytes as plain files, the filesystem's own speed on this machine, timed in
// the same run, alternating with the checkpoint samples (the machine is shared and
// noisy). ratio = checkpoint / plain (1.0: no overhead).
//
//   checkpoint/save_s0        tess_checkpoint_writer_save: shard files (fsync), index,
//                             directory swap, CRC32C of every byte.
//   checkpoint/load_s0        tess_checkpoint_load into the saved layout: each rank reads
//                             and checks its own shard.
//   checkpoint/load_s1        the same into S(1): every rank reads every shard (a
//                             reshard), so it reads world-size times the bytes.
#include <fcntl.h>
#include <mpi.h>
#include <tessera/tessera.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kReps = 5;
constexpr int64_t kElements = int64_t{16} << 20;  // 64 MiB of f32

void CheckC(tess_status s, const char* what) {
  if (s != TESS_OK) {
    std::fprintf(stderr, "checkpoint_bench: %s: %s\n", what, tess_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void CheckSys(bool ok, const char* what) {
  if (!ok) {
    std::perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds of one call of fn, every rank starting together; the slowest rank's.
template <typename Fn>
double Time(const Fn& fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto a = std::chrono::steady_clock::now();
  fn();
  const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  double worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

void PlainWrite(const std::string& path, const std::vector<float>& data) {
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  CheckSys(fd >= 0, "open");
  const size_t bytes = data.size() * sizeof(float);
  CheckSys(write(fd, data.data(), bytes) == static_cast<ssize_t>(bytes), "write");
  CheckSys(fsync(fd) == 0 && close(fd) == 0, "fsync");
}

void PlainRead(const std::string& path, std::vector<float>& data) {
  const int fd = open(path.c_str(), O_RDONLY);
  CheckSys(fd >= 0, "open");
  const size_t bytes = data.size() * sizeof(float);
  CheckSys(pread(fd, data.data(), bytes, 0) == static_cast<ssize_t>(bytes), "read");
  close(fd);
}

void Report(int rank, int size, const char* bench, double seconds, double plain, const char* note) {
  if (rank != 0) return;
  const double mb = kElements * 4.0 / 1e6;
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.0f, \"unit\": \"MB/s\", \"baseline\": %.0f, "
      "\"baseline_name\": \"plain files, same bytes per rank\", \"ratio\": %.3f, "
      "\"ranks\": %d, \"reps\": %d, \"note\": \"%s\"}\n",
      bench, mb / seconds, mb / plain, plain / seconds, size, kReps, note);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: checkpoint_bench DIR (on a filesystem every rank sees)\n");
    return 2;
  }
  const std::string base = argv[1];
  CheckC(tess_runtime_init(), "tess_runtime_init");
  int32_t rank = 0, size = 1;
  CheckC(tess_runtime_world_rank(&rank), "rank");
  CheckC(tess_runtime_world_size(&size), "size");

  std::string text = "cpu:[";
  for (int r = 0; r < size; ++r) text += (r ? "," : "") + std::to_string(r);
  text += "]";
  tess_placement* world = nullptr;
  tess_nd_sbp *s0 = nullptr, *s1 = nullptr;
  CheckC(tess_placement_parse(&world, text.c_str()), "placement");
  CheckC(tess_nd_sbp_parse(&s0, "S(0)"), "S(0)");
  CheckC(tess_nd_sbp_parse(&s1, "S(1)"), "S(1)");
  const int64_t shape[] = {kElements / 1024, 1024};
  tess_tensor* w = nullptr;
  CheckC(tess_tensor_rand(&w, shape, 2, TESS_DTYPE_F32, 1, world, s0), "rand");
  int64_t local = 0;
  CheckC(tess_tensor_local_num_elements(&local, w), "local size");
  std::vector<float> mine(static_cast<size_t>(local));
  const std::string dir = base + "/ck";
  const std::string plain = base + "/plain-" + std::to_string(rank);

  std::vector<double> save, load_s0, load_s1, write, read;
  for (int rep = 0; rep < kReps; ++rep) {
    save.push_back(Time([&] {
      tess_checkpoint_writer* writer = nullptr;
      CheckC(tess_checkpoint_writer_create(&writer), "writer");
      CheckC(tess_checkpoint_writer_add(writer, "w", w), "add");
      CheckC(tess_checkpoint_writer_save(writer, dir.c_str()), "save");
      tess_checkpoint_writer_destroy(writer);
    }));
    write.push_back(Time([&] { PlainWrite(plain, mine); }));
    for (auto [times, sbp] : {std::pair{&load_s0, s0}, std::pair{&load_s1, s1}}) {
      times->push_back(Time([&, sbp = sbp] {
        tess_tensor* t = nullptr;
        CheckC(tess_checkpoint_load(&t, dir.c_str(), "w", world, sbp), "load");
        tess_tensor_destroy(t);
      }));
    }
    read.push_back(Time([&] { PlainRead(plain, mine); }));
  }
  unlink(plain.c_str());
  Report(rank, size, "checkpoint/save_s0", Median(save), Median(write),
         "64 MiB f32 S(0): shards + fsync + index + rename vs write + fsync");
  Report(rank, size, "checkpoint/load_s0", Median(load_s0), Median(read),
         "into the saved layout (page cache warm) vs read");
  Report(rank, size, "checkpoint/load_s1", Median(load_s1), Median(read),
         "into S(1): every rank reads every shard (page cache warm) vs read of its own");
  tess_tensor_destroy(w);
  tess_nd_sbp_destroy(s0);
  tess_nd_sbp_destroy(s1);
  tess_placement_destroy(world);
  tess_runtime_finalize();
  return 0;
}
