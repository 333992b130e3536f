// RegisterManager: one allocation per block, blobs at the planned offsets, data intact
// through a simulated run, and no heap allocation on lookups. Its own binary:
// :heap_counter replaces the global operator new to count allocations.
#include "core/plan/register_manager.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/memory/caching_allocator.h"
#include "core/memory/heap_counter.h"
#include "core/plan/mem_plan.h"
#include "core/plan/mem_test_util.h"

namespace tessera::plan {
namespace {

// Host memory that claims to be `device`, so device memory cases (host header areas) run
// on a machine without a GPU; counts calls and can be told to fail.
class CountingAllocator final : public memory::Allocator {
 public:
  explicit CountingAllocator(MemCase device = MemCase::Host()) : device_(device) {}

  Result<void*> Allocate(size_t bytes, size_t alignment) override {
    if (fail_) return Status(StatusCode::kResourceExhausted, "CountingAllocator: told to fail");
    ++allocs_;
    last_alignment_ = alignment;
    return memory::HostCachingAllocator().Allocate(bytes, alignment);
  }
  Status Free(void* ptr) override {
    if (ptr != nullptr) ++frees_;
    return memory::HostCachingAllocator().Free(ptr);
  }
  memory::AllocatorStats stats() const override { return {}; }
  void ResetPeak() override {}
  DeviceType device_type() const override { return device_.device_type; }
  int device_index() const override { return device_.device_index; }
  size_t max_alignment() const override { return memory::kMaxAlignment; }

  int allocs() const { return allocs_; }
  int frees() const { return frees_; }
  size_t last_alignment() const { return last_alignment_; }
  void set_fail(bool fail) { fail_ = fail; }

 private:
  MemCase device_;
  int allocs_ = 0;
  int frees_ = 0;
  size_t last_alignment_ = 0;
  bool fail_ = false;
};

// Host, cuda:0 and cuda:1 registers; the cuda ones are served by host memory here.
class RegisterManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<MemoryPlan> plan = PlanMemory({
        MakeRegister("x", {4, 8}, {0, 1}, MemCase::Host(), 2),
        MakeRegister("h", {16, 3}, {1, 2}, MemCase::Host()),
        MakeRegister("y", {16, 3}, {2, 3}, MemCase::Host()),
        MakeRegister("s", {}, {0, 3}, MemCase::Host()),
        MakeRegister("d", {5, 7, 2}, {0, 2}, MemCase::Cuda(0), 3),
        MakeRegister("e", {0, 9}, {1, 1}, MemCase::Cuda(0)),
        MakeRegister("f", {1000}, {0, 0}, MemCase::Cuda(1)),
    });
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    plan_ = *plan;
  }
  AllocatorFor Allocators() {
    return [this](const MemCase& mc) -> Result<memory::Allocator*> {
      if (mc == MemCase::Host()) return static_cast<memory::Allocator*>(&host_);
      if (mc == MemCase::Cuda(0)) return static_cast<memory::Allocator*>(&cuda0_);
      return static_cast<memory::Allocator*>(&cuda1_);
    };
  }

  MemoryPlan plan_;
  CountingAllocator host_;
  CountingAllocator cuda0_{MemCase::Cuda(0)};
  CountingAllocator cuda1_{MemCase::Cuda(1)};
};

TEST_F(RegisterManagerTest, AllocatesEachBlockOnceAndFreesIt) {
  {
    Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
    ASSERT_TRUE(manager.ok()) << manager.status().ToString();
    // One allocation per memory case, plus a host header area per device case.
    EXPECT_EQ(host_.allocs(), 1 + 2);
    EXPECT_EQ(cuda0_.allocs(), 1);
    EXPECT_EQ(cuda1_.allocs(), 1);
    const RegisterManagerStats stats = (*manager)->stats();
    EXPECT_EQ(stats.num_block_allocations, 5);
    EXPECT_EQ(stats.num_registers, 7);
    ASSERT_EQ(stats.mem_cases.size(), 3u);
    for (size_t c = 0; c < 3; ++c) {
      EXPECT_EQ(stats.mem_cases[c].mem_case, plan_.mem_cases[c].mem_case);
      EXPECT_EQ(stats.mem_cases[c].block_bytes, plan_.mem_cases[c].block_bytes);
      EXPECT_EQ(stats.mem_cases[c].header_bytes, plan_.mem_cases[c].header_bytes);
    }
    EXPECT_EQ(stats.mem_cases[1].header_bytes, 3 * 64 + 64);  // d's 3 headers, e's 1
    EXPECT_EQ(cuda1_.last_alignment(), 512u);
    EXPECT_EQ(host_.frees() + cuda0_.frees() + cuda1_.frees(), 0);
  }
  EXPECT_EQ(host_.frees(), 3);
  EXPECT_EQ(cuda0_.frees(), 1);
  EXPECT_EQ(cuda1_.frees(), 1);
}

TEST_F(RegisterManagerTest, BlobsSitAtThePlannedOffsets) {
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  ASSERT_TRUE(manager.ok());
  const RegisterManager& m = **manager;
  for (int64_t id = 0; id < m.num_registers(); ++id) {
    const PlannedRegister& r = plan_.registers[id];
    auto* block = static_cast<char*>(*m.BlockBase(r.desc.mem_case));
    for (int copy = 0; copy < r.desc.register_num; ++copy) {
      Result<Blob> blob = m.GetBlob(id, copy);
      ASSERT_TRUE(blob.ok());
      EXPECT_EQ(blob->register_id(), id);
      EXPECT_EQ(blob->copy(), copy);
      EXPECT_EQ(blob->register_info(), &m.plan().registers[id]);
      // Bodies in the block, headers in the header area: for host right after the block.
      auto* headers = static_cast<char*>(*m.HeaderAreaBase(r.desc.mem_case));
      if (r.desc.mem_case.is_host()) {
        EXPECT_EQ(headers, block + plan_.FindMemCase(r.desc.mem_case)->block_bytes);
      }
      char* expected_header = headers + r.header_offset + copy * r.layout.header_bytes;
      char* expected_body = block + r.offset + copy * r.layout.body_bytes;
      EXPECT_EQ(reinterpret_cast<char*>(blob->header()), expected_header) << id << "/" << copy;
      EXPECT_EQ(static_cast<char*>(blob->body()), expected_body) << id << "/" << copy;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(blob->body()) % 512, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(blob->header()) % 64, 0u);
      EXPECT_EQ(blob->shape(), r.desc.shape);  // headers start as the static shape
      EXPECT_EQ(blob->body_bytes(), r.layout.body_bytes);
    }
  }
}

TEST_F(RegisterManagerTest, SetShapeWritesTheHeaderOfOneCopy) {
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  ASSERT_TRUE(manager.ok());
  Blob d1 = *(*manager)->GetBlob(4, 1);
  ASSERT_TRUE(d1.set_shape(Shape({2, 7, 1})).ok());
  EXPECT_EQ((*manager)->GetBlob(4, 1)->shape(), Shape({2, 7, 1}));
  EXPECT_EQ((*manager)->GetBlob(4, 0)->shape(), Shape({5, 7, 2}));
  EXPECT_EQ((*manager)->GetBlob(4, 2)->shape(), Shape({5, 7, 2}));
  EXPECT_EQ(d1.header()[0], 2);
  // Fewer elements in another arrangement is fine; more is not.
  EXPECT_TRUE(d1.set_shape(Shape({70, 1, 1})).ok());
  const Status too_big = d1.set_shape(Shape({71, 1, 1}));
  EXPECT_EQ(too_big.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(too_big.message(),
            "Blob::set_shape: register \"d\" (#4) copy 1: shape [71,1,1] has more elements than "
            "the static shape [5,7,2] (70) the body is sized for");
  EXPECT_EQ(d1.shape(), Shape({70, 1, 1}));  // unchanged on error
  const Status huge = d1.set_shape(Shape({int64_t{1} << 62, int64_t{1} << 62, 0}));
  EXPECT_TRUE(huge.ok()) << huge.ToString();  // zero elements, no overflow
  EXPECT_EQ(d1.set_shape(Shape({int64_t{1} << 62, int64_t{1} << 62, 3})).code(),
            StatusCode::kInvalidArgument);
  const Status rank = d1.set_shape(Shape({70}));
  EXPECT_EQ(rank.message(),
            "Blob::set_shape: register \"d\" (#4) copy 1: shape [70] has 1 dims; the register's "
            "static shape [5,7,2] has 3");
  Shape negative({1, 1, 1});
  negative.set_dim(2, -1);
  EXPECT_NE(d1.set_shape(negative).message().find("has negative dim 2"), std::string::npos);
  // A zero-size register takes only zero-element shapes; a scalar has an empty header.
  Blob e = *(*manager)->GetBlob(5, 0);
  EXPECT_TRUE(e.set_shape(Shape({0, 100})).ok());
  EXPECT_FALSE(e.set_shape(Shape({1, 1})).ok());
  Blob s = *(*manager)->GetBlob(3, 0);
  EXPECT_EQ(s.shape(), Shape());
  EXPECT_TRUE(s.set_shape(Shape()).ok());
  // An empty view.
  Blob empty;
  EXPECT_EQ(empty.shape(), Shape());
  EXPECT_EQ(empty.set_shape(Shape()).message(), "Blob::set_shape: the blob is an empty view");
}

TEST_F(RegisterManagerTest, LookupsAllocateNothing) {
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  ASSERT_TRUE(manager.ok());
  const RegisterManager& m = **manager;
  const int allocs = host_.allocs() + cuda0_.allocs() + cuda1_.allocs();
  const long before = memory::ThreadHeapAllocations();
  int64_t checksum = 0;
  bool all_ok = true;
  for (int round = 0; round < 1000; ++round) {
    for (int64_t id = 0; id < m.num_registers(); ++id) {
      const int copies = m.plan().registers[id].desc.register_num;
      Result<Blob> blob = m.GetBlob(id, round % copies);
      all_ok = all_ok && blob.ok();
      if (!blob.ok()) continue;
      const Shape shape = blob->shape();
      all_ok = all_ok && blob->set_shape(shape).ok();
      checksum +=
          shape.ndim() + static_cast<int64_t>(reinterpret_cast<uintptr_t>(blob->body()) & 1);
    }
  }
  const long during = memory::ThreadHeapAllocations() - before;
  EXPECT_TRUE(all_ok);
  EXPECT_EQ(during, 0) << "heap allocations in 7000 lookups";
  EXPECT_EQ(host_.allocs() + cuda0_.allocs() + cuda1_.allocs(), allocs);
  EXPECT_GT(checksum, 0);
}

// A simulated run of a random MLP plan: each step checks the values of the registers it
// reads and writes a pattern into the ones it writes. Registers sharing memory would clobber
// each other; the multi-copy input alternates copies across runs, and the next input is
// pushed mid-run, while the steps still read the current one.
TEST(RegisterManagerRunTest, ValuesSurviveUntilTheirLastRead) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    const TestPlan test_plan = MlpForwardPlan(rng, 20);
    Result<MemoryPlan> plan = PlanMemory(test_plan.registers);
    ASSERT_TRUE(plan.ok());
    Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(*plan);
    ASSERT_TRUE(manager.ok()) << manager.status().ToString();
    const RegisterManager& m = **manager;
    // Every element near the ends and every 61st in between: regions are 512-byte (128
    // float) granular, so any two regions that overlap share a sampled element.
    auto sampled = [](int64_t i, int64_t n) { return i < 64 || i >= n - 64 || i % 61 == 0; };
    auto fill = [&](int64_t id, int copy, float value) {
      Blob blob = *m.GetBlob(id, copy);
      const int64_t n = blob.shape().num_elements();
      auto* body = static_cast<float*>(blob.body());
      for (int64_t i = 0; i < n; ++i) {
        if (sampled(i, n)) body[i] = value + static_cast<float>(i % 7);
      }
    };
    auto intact = [&](int64_t id, int copy, float value) {
      Blob blob = *m.GetBlob(id, copy);
      const int64_t n = blob.shape().num_elements();
      const auto* body = static_cast<const float*>(blob.body());
      for (int64_t i = 0; i < n; ++i) {
        if (sampled(i, n) && body[i] != value + static_cast<float>(i % 7)) return false;
      }
      return true;
    };
    constexpr int64_t kInput = 0;  // MlpForwardPlan's input, register_num 2
    ASSERT_EQ(m.plan().registers[kInput].desc.register_num, 2);
    const size_t mid = test_plan.steps.size() / 2;
    for (int run = 0; run < 3; ++run) {
      const int copy = run % 2;
      for (size_t s = 0; s < test_plan.steps.size(); ++s) {
        const PlanStep& step = test_plan.steps[s];
        for (int64_t id : step.reads) {
          const int c = id == kInput ? copy : 0;
          const float value = id == kInput ? 1000.0f * run : 10.0f * id + 1000.0f * run;
          ASSERT_TRUE(intact(id, c, value))
              << "trial " << trial << " run " << run << " step " << s << " register " << id;
        }
        for (int64_t id : step.writes) {
          if (id == kInput && !(run == 0 && s == 0)) continue;  // pushed below instead
          fill(id, id == kInput ? copy : 0, id == kInput ? 0.0f : 10.0f * id + 1000.0f * run);
        }
        if (s == mid) fill(kInput, 1 - copy, 1000.0f * (run + 1));  // the next run's input
      }
    }
  }
}

TEST_F(RegisterManagerTest, GetBlobBadIds) {
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  ASSERT_TRUE(manager.ok());
  const RegisterManager& m = **manager;
  Result<Blob> b = m.GetBlob(7, 0);
  EXPECT_EQ(b.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(b.status().message(),
            "RegisterManager::GetBlob: register #7 is unknown; the plan has 7 registers");
  EXPECT_EQ(m.GetBlob(-1, 0).status().code(), StatusCode::kNotFound);
  b = m.GetBlob(0, 2);
  EXPECT_EQ(b.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(b.status().message(),
            "RegisterManager::GetBlob: register \"x\" (#0) has register_num 2; copy index 2 is "
            "outside [0, 2)");
  EXPECT_EQ(m.GetBlob(1, -1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(m.BlockBase(MemCase::Cuda(4)).status().message(),
            "RegisterManager::BlockBase: the plan has no register in cuda:4");
  EXPECT_EQ(m.HeaderAreaBase(MemCase::Cuda(4)).status().message(),
            "RegisterManager::HeaderAreaBase: the plan has no register in cuda:4");
  EXPECT_TRUE(m.HeaderAreaBase(MemCase::Host()).ok());
  EXPECT_TRUE(m.HeaderAreaBase(MemCase::Cuda(1)).ok());
}

TEST_F(RegisterManagerTest, CreateRejectsInvalidPlans) {
  plan_.registers[1].offset = plan_.registers[0].offset;  // x and h are live at step 1
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  EXPECT_EQ(manager.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(manager.status().message().find("CheckNoOverlap"), std::string::npos);
  EXPECT_EQ(host_.allocs(), 0);
}

TEST_F(RegisterManagerTest, CreateRejectsBadAllocators) {
  auto error = [&](const AllocatorFor& allocator_for) {
    Result<std::unique_ptr<RegisterManager>> m = RegisterManager::Create(plan_, allocator_for);
    EXPECT_FALSE(m.ok());
    return m.status();
  };
  EXPECT_EQ(error(AllocatorFor()).message(),
            "RegisterManager::Create: the allocator for cpu (block): allocator_for is empty");
  EXPECT_EQ(error([](const MemCase&) -> Result<memory::Allocator*> {
              return static_cast<memory::Allocator*>(nullptr);
            }).message(),
            "RegisterManager::Create: the allocator for cpu (block) is null");
  EXPECT_EQ(error([](const MemCase&) -> Result<memory::Allocator*> {
              return NotFound("no allocator here");
            }).message(),
            "no allocator here");
  // cuda:0 served by cuda:1's allocator.
  const Status mismatch = error([this](const MemCase& mc) -> Result<memory::Allocator*> {
    if (mc.is_host()) return static_cast<memory::Allocator*>(&host_);
    return static_cast<memory::Allocator*>(&cuda1_);
  });
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mismatch.message(),
            "RegisterManager::Create: the allocator for cuda:0 (block) allocates cuda:1 memory");
  // Device headers must go to host memory: the second host lookup (cuda:0's headers) gets
  // a device allocator.
  int host_lookups = 0;
  const Status headers = error([&](const MemCase& mc) -> Result<memory::Allocator*> {
    if (mc.is_host() && ++host_lookups == 2) return static_cast<memory::Allocator*>(&cuda0_);
    if (mc.is_host()) return static_cast<memory::Allocator*>(&host_);
    return static_cast<memory::Allocator*>(mc == MemCase::Cuda(0) ? &cuda0_ : &cuda1_);
  });
  EXPECT_EQ(headers.message(),
            "RegisterManager::Create: the allocator for cpu (headers) allocates cuda:0 memory");
  // The default allocator serves no device without a CUDA build.
#if !defined(TESSERA_WITH_CUDA)
  const Status no_cuda = error(DefaultAllocatorFor);
  EXPECT_EQ(no_cuda.code(), StatusCode::kUnavailable);
  EXPECT_EQ(no_cuda.message(),
            "DefaultAllocatorFor: memory case cuda:0 needs a CUDA build (--config=cuda) or an "
            "AllocatorFor that serves it");
#endif
}

TEST_F(RegisterManagerTest, AllocationFailureFreesWhatWasAllocated) {
  cuda1_.set_fail(true);
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(plan_, Allocators());
  EXPECT_EQ(manager.status().code(), StatusCode::kResourceExhausted);
  EXPECT_GT(host_.allocs(), 0);
  EXPECT_EQ(host_.frees(), host_.allocs());
  EXPECT_EQ(cuda0_.frees(), cuda0_.allocs());
}

TEST(DefaultAllocatorForTest, HostIsTheCachingAllocatorAndBadCasesAreRejected) {
  Result<memory::Allocator*> host = DefaultAllocatorFor(MemCase::Host());
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(*host, &memory::HostCachingAllocator());
  EXPECT_EQ(DefaultAllocatorFor(MemCase::Cuda(-1)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DefaultAllocatorFor(MemCase{DeviceType::kCpu, 2}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(RegisterManagerEmptyTest, AnEmptyPlanAllocatesNothing) {
  CountingAllocator host;
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(
      *PlanMemory({}), [&](const MemCase&) -> Result<memory::Allocator*> { return &host; });
  ASSERT_TRUE(manager.ok());
  EXPECT_EQ(host.allocs(), 0);
  EXPECT_EQ((*manager)->stats().num_block_allocations, 0);
  EXPECT_EQ((*manager)->GetBlob(0, 0).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tessera::plan

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
