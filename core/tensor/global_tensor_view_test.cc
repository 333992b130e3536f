// GlobalTensor::View: a piece that is someone else's memory, kept alive by its owner.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {
namespace {

infer::TensorMeta Meta(const char* placement, const char* sbp) {
  auto meta = infer::TensorMeta::Make(Shape{4, 3}, DType::kF32, *Placement::Parse(placement),
                                      *NdSbp::Parse(sbp));
  EXPECT_TRUE(meta.ok()) << meta.status().ToString();
  return *meta;
}

TEST(GlobalTensorViewTest, PieceIsTheGivenMemoryAndTheOwnerLivesAsLongAsTheTensor) {
  auto memory = std::make_shared<std::vector<float>>(12, 1.5f);
  std::weak_ptr<std::vector<float>> watch = memory;
  float* data = memory->data();
  auto view = GlobalTensor::View(Meta("cpu:0", "B"), 0, data, memory);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  memory.reset();
  EXPECT_FALSE(watch.expired());  // the tensor keeps it
  EXPECT_TRUE((*view)->is_view());
  EXPECT_EQ((*view)->local_data(), data);
  EXPECT_EQ((*view)->local().data, data);
  data[5] = 7;  // a write through the owner's memory is the tensor's value
  std::vector<float> host(12);
  ASSERT_TRUE((*view)->CopyLocalToHost(host.data()).ok());
  EXPECT_EQ(host[5], 7);
  EXPECT_EQ(host[0], 1.5f);
  view->reset();
  EXPECT_TRUE(watch.expired());
}

TEST(GlobalTensorViewTest, SplitPieceAndRanksOutsideThePlacement) {
  std::vector<float> memory(6);
  // Rank 1 of cpu:0-1 holds rows 2..3 of S(0): 6 elements.
  auto view = GlobalTensor::View(Meta("cpu:0-1", "S(0)"), 1, memory.data(), nullptr);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ((*view)->local_shape(), Shape({2, 3}));
  EXPECT_EQ((*view)->local_data(), memory.data());
  auto outside = GlobalTensor::View(Meta("cpu:0-1", "S(0)"), 2, nullptr, nullptr);
  ASSERT_TRUE(outside.ok()) << outside.status().ToString();
  EXPECT_FALSE((*outside)->has_local());
  EXPECT_EQ((*outside)->local_data(), nullptr);
}

TEST(GlobalTensorViewTest, NullDataForAPieceIsAnError) {
  auto view = GlobalTensor::View(Meta("cpu:0", "B"), 0, nullptr, nullptr);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(view.status().message(),
            "GlobalTensor::View: data is null but rank 0's piece of [4,3] f32 cpu:[0] B holds 48 "
            "bytes");
}

}  // namespace
}  // namespace tensor
}  // namespace tessera
