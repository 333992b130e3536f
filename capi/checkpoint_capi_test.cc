// tess_checkpoint_* in a world of one rank: a save listed and loaded back into other
// layouts (the values compared with the input), load_checked, replacing a checkpoint,
// and the calls before tess_runtime_init. Multi-rank checkpoints, resharding and damaged
// files: tests/checkpoint; every bad argument: capi/bad_inputs/checkpoints.cc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

struct CheckpointDestroy {
  void operator()(tess_checkpoint_writer* w) const { tess_checkpoint_writer_destroy(w); }
  void operator()(tess_checkpoint_index* i) const { tess_checkpoint_index_destroy(i); }
};
using WriterPtr = std::unique_ptr<tess_checkpoint_writer, CheckpointDestroy>;
using IndexPtr = std::unique_ptr<tess_checkpoint_index, CheckpointDestroy>;

std::string Scratch(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
}

WriterPtr Writer() {
  tess_checkpoint_writer* w = nullptr;
  EXPECT_EQ(tess_checkpoint_writer_create(&w), TESS_OK) << LastError();
  return WriterPtr(w);
}

// Runs before any test initialises the runtime (gtest keeps definition order).
TEST(CheckpointBeforeInitTest, NeedsTheRuntime) {
  WriterPtr w = Writer();
  EXPECT_EQ(tess_checkpoint_writer_save(w.get(), Scratch("early").c_str()),
            TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("tess_checkpoint_writer_save: the runtime is not initialised"));
  PlacementPtr p = Placement("cpu:[0]");
  NdSbpPtr b = NdSbp("B");
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_checkpoint_load(&t, Scratch("early").c_str(), "x", p.get(), b.get()),
            TESS_FAILED_PRECONDITION);
  EXPECT_EQ(t, nullptr);
}

class CheckpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }
};

TEST_F(CheckpointTest, SavesListsAndLoadsIntoOtherLayouts) {
  const std::vector<double> w_data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<int32_t> step_data = {42};
  TensorPtr w = FromHost(w_data, {3, 4}, "cpu:[0]", "S(0)");
  TensorPtr step = FromHost(step_data, {}, "cpu:[0]", "B");
  WriterPtr writer = Writer();
  ASSERT_EQ(tess_checkpoint_writer_add(writer.get(), "model.w", w.get()), TESS_OK) << LastError();
  ASSERT_EQ(tess_checkpoint_writer_add(writer.get(), "step", step.get()), TESS_OK) << LastError();
  const std::string dir = Scratch("capi_ck");
  ASSERT_EQ(tess_checkpoint_writer_save(writer.get(), dir.c_str()), TESS_OK) << LastError();

  tess_checkpoint_index* raw = nullptr;
  ASSERT_EQ(tess_checkpoint_index_open(&raw, dir.c_str()), TESS_OK) << LastError();
  IndexPtr index(raw);
  size_t n = 0;
  ASSERT_EQ(tess_checkpoint_index_num_tensors(&n, index.get()), TESS_OK);
  ASSERT_EQ(n, 2u);
  EXPECT_STREQ(tess_checkpoint_index_name(index.get(), 0), "model.w");
  EXPECT_STREQ(tess_checkpoint_index_name(index.get(), 1), "step");
  EXPECT_STREQ(tess_checkpoint_index_name(index.get(), 2), "");
  EXPECT_STREQ(tess_checkpoint_index_name(nullptr, 0), "");
  EXPECT_STREQ(tess_checkpoint_index_placement(index.get(), 0), "cpu:[0]");
  EXPECT_STREQ(tess_checkpoint_index_nd_sbp(index.get(), 0), "S(0)");
  const int64_t* dims = nullptr;
  size_t ndim = 0;
  ASSERT_EQ(tess_checkpoint_index_shape(&dims, &ndim, index.get(), 0), TESS_OK);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + ndim), (std::vector<int64_t>{3, 4}));
  ASSERT_EQ(tess_checkpoint_index_shape(&dims, &ndim, index.get(), 1), TESS_OK);
  EXPECT_EQ(ndim, 0u);
  tess_dtype dtype = -1;
  ASSERT_EQ(tess_checkpoint_index_dtype(&dtype, index.get(), 1), TESS_OK);
  EXPECT_EQ(dtype, TESS_DTYPE_I32);
  size_t shards = 0;
  ASSERT_EQ(tess_checkpoint_index_num_shards(&shards, index.get(), 0), TESS_OK);
  EXPECT_EQ(shards, 1u);

  for (const char* layout : {"S(1)", "B", "P"}) {
    PlacementPtr p = Placement("cpu:[0]");
    NdSbpPtr s = NdSbp(layout);
    tess_tensor* t = nullptr;
    ASSERT_EQ(tess_checkpoint_load(&t, dir.c_str(), "model.w", p.get(), s.get()), TESS_OK)
        << LastError();
    TensorPtr loaded(t);
    EXPECT_EQ(NdSbpText(loaded.get()), layout);
    EXPECT_EQ(ToHost<double>(loaded.get()), w_data) << layout;
  }
  PlacementPtr p = Placement("cpu:[0]");
  NdSbpPtr b = NdSbp("B");
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_checkpoint_load_checked(&t, dir.c_str(), "step", p.get(), b.get(), nullptr, 0,
                                         TESS_DTYPE_I32),
            TESS_OK)
      << LastError();
  TensorPtr loaded(t);
  EXPECT_EQ(ToHost<int32_t>(loaded.get()), step_data);
}

TEST_F(CheckpointTest, SavingAgainReplacesTheCheckpoint) {
  const std::string dir = Scratch("capi_replace");
  PlacementPtr p = Placement("cpu:[0]");
  NdSbpPtr b = NdSbp("B");
  for (float value : {1.0f, 2.0f}) {
    TensorPtr x = FromHost(std::vector<float>{value, value}, {2}, "cpu:[0]", "B");
    WriterPtr writer = Writer();
    ASSERT_EQ(tess_checkpoint_writer_add(writer.get(), "x", x.get()), TESS_OK);
    ASSERT_EQ(tess_checkpoint_writer_save(writer.get(), dir.c_str()), TESS_OK) << LastError();
    tess_tensor* t = nullptr;
    ASSERT_EQ(tess_checkpoint_load(&t, dir.c_str(), "x", p.get(), b.get()), TESS_OK);
    TensorPtr loaded(t);
    EXPECT_EQ(ToHost<float>(loaded.get()), (std::vector<float>{value, value}));
  }
  // The writer rejects what a save could not write, before any collective.
  WriterPtr writer = Writer();
  TensorPtr x = FromHost(std::vector<float>{1}, {1}, "cpu:[0]", "B");
  EXPECT_EQ(tess_checkpoint_writer_add(writer.get(), "", x.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_checkpoint_writer_add: tensor name \"\" must have 1 to 1024 bytes");
}

}  // namespace
}  // namespace tessera::capi_test
