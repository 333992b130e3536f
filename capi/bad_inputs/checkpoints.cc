// Bad inputs: sharded checkpoints (tessera/checkpoint.h). The damaged-file cases each
// save a fresh checkpoint of f.x and damage one file, inside a scratch directory the
// catalogue enters once (chdir), so that the paths in the messages, and so the table
// in docs/reliability.md, are the same on every run.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {
namespace {

void EnterScratchDir() {
  static const bool entered = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/bad_checkpoints_XXXXXX";
    return mkdtemp(dir.data()) != nullptr && chdir(dir.c_str()) == 0;
  }();
  if (!entered) std::fprintf(stderr, "bad inputs: cannot enter a scratch directory\n");
}

// Saves f.x as "x" into `dir` (replacing a checkpoint there).
tess_status SaveX(const char* dir) {
  EnterScratchDir();
  tess_checkpoint_writer* writer = nullptr;
  tess_status st = tess_checkpoint_writer_create(&writer);
  if (st == TESS_OK) st = tess_checkpoint_writer_add(writer, "x", f.x);
  if (st == TESS_OK) st = tess_checkpoint_writer_save(writer, dir);
  tess_checkpoint_writer_destroy(writer);
  return st;
}

// What is done to one file of a fresh checkpoint.
enum class Harm { kFlipFirst, kFlipLast, kCut, kRemove };

// `dir`/`file` harmed: its first data byte (after the 8 length bytes) or its last byte
// XOR-ed, 4 bytes cut off its end, or removed.
void Damage(const std::string& dir, const char* file, Harm harm) {
  const std::string path = dir + "/" + file;
  if (harm == Harm::kRemove) {
    std::remove(path.c_str());
    return;
  }
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary | std::ios::ate);
  const long size = static_cast<long>(io.tellg());
  if (harm == Harm::kCut) {
    io.close();
    if (truncate(path.c_str(), size - 4) != 0) std::perror("truncate");
    return;
  }
  const long at = harm == Harm::kFlipLast ? size - 1 : 8;
  io.seekg(at);
  const char c = static_cast<char>(io.get());
  io.seekp(at);
  io.put(static_cast<char>(c ^ 0x21));
}

// Saves f.x into `dir`, damages `file`, and loads "x" back.
tess_status LoadDamaged(const char* dir, const char* file, Harm harm) {
  if (SaveX(dir) != TESS_OK) return TESS_INTERNAL;
  Damage(dir, file, harm);
  tess_tensor* t = nullptr;
  const tess_status st = tess_checkpoint_load(&t, dir, "x", f.p, f.b);
  tess_tensor_destroy(t);
  return st;
}

tess_status Load(const char* dir, const char* name, const tess_nd_sbp* nd_sbp) {
  tess_tensor* t = nullptr;
  const tess_status st = tess_checkpoint_load(&t, dir, name, f.p, nd_sbp);
  tess_tensor_destroy(t);
  return st;
}

tess_status LoadChecked(const int64_t* shape, size_t ndim, tess_dtype dtype) {
  if (SaveX("ck") != TESS_OK) return TESS_INTERNAL;
  tess_tensor* t = nullptr;
  const tess_status st = tess_checkpoint_load_checked(&t, "ck", "x", f.p, f.b, shape, ndim, dtype);
  tess_tensor_destroy(t);
  return st;
}

tess_status AddTwice(const char* first, const char* second) {
  tess_checkpoint_writer* writer = nullptr;
  if (tess_checkpoint_writer_create(&writer) != TESS_OK) return TESS_INTERNAL;
  tess_status st = tess_checkpoint_writer_add(writer, first, f.x);
  if (st == TESS_OK) st = tess_checkpoint_writer_add(writer, second, f.y);
  tess_checkpoint_writer_destroy(writer);
  return st;
}

// Opens the index of a fresh checkpoint of f.x and asks `get` about tensor 1 (there is
// only tensor 0).
tess_status AskPastTheEnd(tess_status (*get)(const tess_checkpoint_index*)) {
  if (SaveX("ck") != TESS_OK) return TESS_INTERNAL;
  tess_checkpoint_index* index = nullptr;
  if (tess_checkpoint_index_open(&index, "ck") != TESS_OK) return TESS_INTERNAL;
  const tess_status st = get(index);
  tess_checkpoint_index_destroy(index);
  return st;
}

}  // namespace

std::vector<Case> CheckpointCases() {
  static const int64_t kShape32[] = {3, 2};
  return {
    CASE("tess_checkpoint_writer_create", "out is NULL", kInvalid, "out",
         return tess_checkpoint_writer_create(nullptr);),
        CASE("tess_checkpoint_writer_add", "writer is NULL", kInvalid, "writer",
             return tess_checkpoint_writer_add(nullptr, "x", f.x);),
        CASE("tess_checkpoint_writer_add", "name is NULL", kInvalid, "name",
             return AddTwice(nullptr, "y");),
        CASE("tess_checkpoint_writer_add", "empty name", kInvalid, "1 to 1024 bytes",
             return AddTwice("", "y");),
        CASE("tess_checkpoint_writer_add", "name \"__metadata__\"", kInvalid, "__metadata__",
             return AddTwice("__metadata__", "y");),
        CASE("tess_checkpoint_writer_add", "name with a newline", kInvalid, "control character",
             return AddTwice("a\nb", "y");),
        CASE("tess_checkpoint_writer_add", "name added twice", kInvalid, "\"w\" was added already",
             return AddTwice("w", "w");),
        CASE("tess_checkpoint_writer_save", "writer is NULL", kInvalid, "writer",
             return tess_checkpoint_writer_save(nullptr, "ck");),
        CASE("tess_checkpoint_writer_save", "dir is NULL", kInvalid, "dir",
             tess_checkpoint_writer* w = nullptr;
             tess_checkpoint_writer_create(&w);
             const tess_status st = tess_checkpoint_writer_save(w, nullptr);
             tess_checkpoint_writer_destroy(w); return st;),
        CASE("tess_checkpoint_writer_save", "empty dir", kInvalid, "dir is empty",
             return SaveX("");),
        CASE("tess_checkpoint_writer_save", "parent directory missing", kNotFound, "no/such/parent",
             return SaveX("no/such/parent/ck");),
        CASE("tess_checkpoint_writer_save", "dir is a directory that is not a checkpoint",
             kPrecondition, "not a checkpoint", EnterScratchDir();
             std::ofstream("mine.txt") << "keep"; return SaveX(".");),
        CASE("tess_checkpoint_writer_save", "dir is a file", kPrecondition, "mine.txt",
             return SaveX("mine.txt");),
        CASE("tess_checkpoint_load", "out is NULL", kInvalid, "out",
             return tess_checkpoint_load(nullptr, "ck", "x", f.p, f.b);),
        CASE("tess_checkpoint_load", "dir is NULL", kInvalid, "dir", tess_tensor* t = nullptr;
             return tess_checkpoint_load(&t, nullptr, "x", f.p, f.b);),
        CASE("tess_checkpoint_load", "name is NULL", kInvalid, "name", tess_tensor* t = nullptr;
             return tess_checkpoint_load(&t, "ck", nullptr, f.p, f.b);),
        CASE("tess_checkpoint_load", "placement is NULL", kInvalid, "placement",
             tess_tensor* t = nullptr;
             return tess_checkpoint_load(&t, "ck", "x", nullptr, f.b);),
        CASE("tess_checkpoint_load", "nd_sbp is NULL", kInvalid, "nd_sbp", tess_tensor* t = nullptr;
             return tess_checkpoint_load(&t, "ck", "x", f.p, nullptr);),
        CASE("tess_checkpoint_load", "no checkpoint at dir", kNotFound,
             "missing checkpoint index absent/index.json", EnterScratchDir();
             return Load("absent", "x", f.b);),
        CASE("tess_checkpoint_load", "unknown tensor name", kNotFound, "has no tensor \"nope\"",
             SaveX("ck");
             return Load("ck", "nope", f.b);),
        CASE("tess_checkpoint_load", "nd-sbp S(2) for a 2-d tensor", kInvalid, "S(2)", SaveX("ck");
             return Load("ck", "x", f.s2);),
        CASE("tess_checkpoint_load", "a flipped byte in the shard's data", TESS_DATA_LOSS,
             "corrupt shard of tensor \"x\" in flipped/rank-00000.safetensors",
             return LoadDamaged("flipped", "rank-00000.safetensors", Harm::kFlipLast);),
        CASE("tess_checkpoint_load", "the shard file cut short", TESS_DATA_LOSS,
             "truncated safetensors file cut/rank-00000.safetensors",
             return LoadDamaged("cut", "rank-00000.safetensors", Harm::kCut);),
        CASE("tess_checkpoint_load", "the shard file removed", kNotFound,
             "missing file gone/rank-00000.safetensors",
             return LoadDamaged("gone", "rank-00000.safetensors", Harm::kRemove);),
        CASE("tess_checkpoint_load", "the shard header's JSON broken", TESS_DATA_LOSS,
             "malformed safetensors header in header/rank-00000.safetensors",
             return LoadDamaged("header", "rank-00000.safetensors", Harm::kFlipFirst);),
        CASE("tess_checkpoint_load", "a byte of the index flipped", TESS_DATA_LOSS,
             "checkpoint index index/index.json",
             return LoadDamaged("index", "index.json", Harm::kFlipFirst);),
        CASE("tess_checkpoint_load_checked", "another shape than saved", kInvalid,
             "not the shape [3,2]", return LoadChecked(kShape32, 2, TESS_DTYPE_F32);),
        CASE("tess_checkpoint_load_checked", "another dtype than saved", kInvalid,
             "not the dtype f64", return LoadChecked(kShape23, 2, TESS_DTYPE_F64);),
        CASE("tess_checkpoint_load_checked", "unknown dtype 99", kInvalid, "99",
             return LoadChecked(kShape23, 2, 99);),
        CASE("tess_checkpoint_load_checked", "negative dim", kInvalid, "-3",
             return LoadChecked(kNegative, 2, TESS_DTYPE_F32);),
        CASE("tess_checkpoint_load_checked", "shape is NULL with ndim 2", kInvalid, "shape",
             return LoadChecked(nullptr, 2, TESS_DTYPE_F32);),
        CASE("tess_checkpoint_index_open", "out is NULL", kInvalid, "out",
             return tess_checkpoint_index_open(nullptr, "ck");),
        CASE("tess_checkpoint_index_open", "dir is NULL", kInvalid, "dir",
             tess_checkpoint_index* i = nullptr;
             return tess_checkpoint_index_open(&i, nullptr);),
        CASE("tess_checkpoint_index_open", "no checkpoint at dir", kNotFound,
             "missing checkpoint index absent/index.json", EnterScratchDir();
             tess_checkpoint_index* i = nullptr; return tess_checkpoint_index_open(&i, "absent");),
        CASE("tess_checkpoint_index_num_tensors", "index is NULL", kInvalid, "index", size_t n;
             return tess_checkpoint_index_num_tensors(&n, nullptr);),
        CASE("tess_checkpoint_index_shape", "tensor 1 of 1", kInvalid, "tensor index 1",
             return AskPastTheEnd([](const tess_checkpoint_index* index) {
               const int64_t* dims;
               size_t ndim;
               return tess_checkpoint_index_shape(&dims, &ndim, index, 1);
             });),
        CASE("tess_checkpoint_index_dtype", "tensor 1 of 1", kInvalid, "past the checkpoint's 1",
             return AskPastTheEnd([](const tess_checkpoint_index* index) {
               tess_dtype d;
               return tess_checkpoint_index_dtype(&d, index, 1);
             });),
        CASE("tess_checkpoint_index_num_shards", "out is NULL", kInvalid, "out",
             return AskPastTheEnd([](const tess_checkpoint_index* index) {
               return tess_checkpoint_index_num_shards(nullptr, index, 0);
             });),
  };
}

}  // namespace tessera::bad_inputs
