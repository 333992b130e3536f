#include "core/plan/mem_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "core/plan/mem_test_util.h"

namespace tessera::plan {
namespace {

// The painting oracle over a whole plan, one memory case at a time: bodies with lifetimes
// widened to the whole plan for register_num > 1 (computed here, not through
// PackingLifetime), headers all at one step since they are never shared.
void ExpectNoCollision(const MemoryPlan& plan) {
  for (const MemCasePlan& mc : plan.mem_cases) {
    std::vector<PackItem> bodies;
    std::vector<int64_t> body_offsets;
    std::vector<PackItem> headers;
    std::vector<int64_t> header_offsets;
    for (int64_t id : mc.register_ids) {
      const PlannedRegister& r = plan.registers[id];
      const Lifetime life = r.desc.register_num > 1 ? Lifetime{0, plan.last_step} : r.desc.lifetime;
      bodies.push_back(PackItem{r.layout.block_bytes, life});
      body_offsets.push_back(r.offset);
      headers.push_back(PackItem{r.layout.header_area_bytes, Lifetime{0, 0}});
      header_offsets.push_back(r.header_offset);
      EXPECT_EQ(r.offset % 512, 0);
      EXPECT_LE(r.offset + r.layout.block_bytes, mc.block_bytes);
      EXPECT_EQ(r.header_offset % 64, 0);
      EXPECT_LE(r.header_offset + r.layout.header_area_bytes, mc.header_bytes);
    }
    EXPECT_TRUE(PaintedWithoutCollision(bodies, body_offsets, 512)) << mc.mem_case.ToString();
    EXPECT_TRUE(PaintedWithoutCollision(headers, header_offsets, 64)) << mc.mem_case.ToString();
    EXPECT_GE(mc.block_bytes, LowerBoundByLoop(bodies));
    EXPECT_EQ(mc.lower_bound, LowerBoundByLoop(bodies));
  }
}

TEST(PlanMemoryTest, RegistersFromAStepListReuseDeadMemory) {
  // x -> h1 -> h2 -> out, each read only by the next step: x and h2 never live together.
  const std::vector<PlanStep> steps = {{{}, {0}}, {{0}, {1}}, {{1}, {2}}, {{2}, {3}}, {{3}, {}}};
  Result<std::vector<Lifetime>> lifetimes = ComputeLifetimes(4, steps);
  ASSERT_TRUE(lifetimes.ok());
  std::vector<RegisterDesc> regs = {MakeRegister("x", {64, 64}, (*lifetimes)[0]),
                                    MakeRegister("h1", {64, 64}, (*lifetimes)[1]),
                                    MakeRegister("h2", {64, 64}, (*lifetimes)[2]),
                                    MakeRegister("out", {64, 64}, (*lifetimes)[3])};
  Result<MemoryPlan> plan = PlanMemory(regs);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(CheckNoOverlap(*plan).ok());
  ExpectNoCollision(*plan);
  // Each body: 64 * 64 * 4 = 16384 bytes. At most two registers are live at a step, and two
  // slots suffice (x, h2 share; h1, out share).
  const int64_t slot = 16384;
  ASSERT_EQ(plan->mem_cases.size(), 1u);
  EXPECT_EQ(plan->mem_cases[0].lower_bound, 2 * slot);
  EXPECT_EQ(plan->mem_cases[0].block_bytes, 2 * slot);
  EXPECT_EQ(plan->mem_cases[0].no_reuse_bytes, 4 * slot);
  EXPECT_EQ(plan->registers[0].offset, plan->registers[2].offset);
  EXPECT_EQ(plan->registers[1].offset, plan->registers[3].offset);
  EXPECT_NE(plan->registers[0].offset, plan->registers[1].offset);
  EXPECT_EQ(plan->last_step, 4);
  std::printf("%s", plan->ToString().c_str());
}

TEST(PlanMemoryTest, OverlappingLifetimesNeverShare) {
  Result<MemoryPlan> plan =
      PlanMemory({MakeRegister("a", {10}, {0, 2}), MakeRegister("b", {10}, {2, 3}),
                  MakeRegister("c", {10}, {3, 3})});
  ASSERT_TRUE(plan.ok());
  // a and b meet at step 2, b and c at step 3; a and c may share.
  EXPECT_NE(plan->registers[0].offset, plan->registers[1].offset);
  EXPECT_NE(plan->registers[1].offset, plan->registers[2].offset);
  EXPECT_EQ(plan->mem_cases[0].block_bytes, 2 * 512);
}

TEST(PlanMemoryTest, MultiCopyRegistersAreNeverShared) {
  // "in" has register_num 2 and lifetime [0,0], "t" lives at [2,3] only; without the
  // multi-copy rule they could share. Each copy is its own blob region.
  Result<MemoryPlan> plan = PlanMemory(
      {MakeRegister("in", {100}, {0, 0}, MemCase::Host(), 2), MakeRegister("t", {100}, {2, 3})});
  ASSERT_TRUE(plan.ok());
  const PlannedRegister& in = plan->registers[0];
  // Two 512-byte bodies (the two headers are in the header area).
  EXPECT_EQ(in.layout.block_bytes, 2 * 512);
  EXPECT_EQ(PackingLifetime(in.desc, plan->last_step), (Lifetime{0, 3}));
  const int64_t t_offset = plan->registers[1].offset;
  EXPECT_TRUE(t_offset >= in.offset + in.layout.block_bytes ||
              t_offset + plan->registers[1].layout.block_bytes <= in.offset);
  EXPECT_EQ(plan->mem_cases[0].block_bytes, 1024 + 512);
  ExpectNoCollision(*plan);
}

TEST(PlanMemoryTest, MemoryCasesArePackedSeparatelyWithHeadersApart) {
  Result<MemoryPlan> plan = PlanMemory({MakeRegister("d0", {128}, {0, 1}, MemCase::Cuda(1)),
                                        MakeRegister("h", {128}, {0, 1}),
                                        MakeRegister("d1", {4, 128}, {0, 3}, MemCase::Cuda(1), 2),
                                        MakeRegister("d2", {0}, {2, 2}, MemCase::Cuda(0))});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->mem_cases.size(), 3u);
  EXPECT_EQ(plan->mem_cases[0].mem_case, MemCase::Host());
  EXPECT_EQ(plan->mem_cases[1].mem_case, MemCase::Cuda(0));
  EXPECT_EQ(plan->mem_cases[2].mem_case, MemCase::Cuda(1));
  EXPECT_EQ(plan->mem_cases[2].register_ids, (std::vector<int64_t>{0, 2}));
  // cuda:1 headers in id order: d0's one 64-byte header, then d1's two.
  EXPECT_EQ(plan->registers[0].header_offset, 0);
  EXPECT_EQ(plan->registers[2].header_offset, 64);
  EXPECT_EQ(plan->mem_cases[2].header_bytes, 192);
  EXPECT_EQ(plan->registers[1].header_offset, 0);
  EXPECT_EQ(plan->mem_cases[0].header_bytes, 64);
  // Bodies only on the device: d0 512, d1 2 x 2048, live together.
  EXPECT_EQ(plan->mem_cases[2].block_bytes, 512 + 4096);
  // A zero-size device register holds no device bytes, only its header.
  EXPECT_EQ(plan->mem_cases[1].block_bytes, 0);
  EXPECT_EQ(plan->mem_cases[1].header_bytes, 64);
  EXPECT_EQ(plan->FindMemCase(MemCase::Cuda(1)), &plan->mem_cases[2]);
  EXPECT_EQ(plan->FindMemCase(MemCase::Cuda(5)), nullptr);
  ExpectNoCollision(*plan);
  const std::string text = plan->ToString();
  EXPECT_NE(text.find("cuda:1: block 4608 B"), std::string::npos) << text;
  EXPECT_NE(text.find("headers 192 B in host memory"), std::string::npos) << text;
  std::printf("%s", text.c_str());
}

TEST(PlanMemoryTest, EmptyPlan) {
  Result<MemoryPlan> plan = PlanMemory({});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->registers.empty());
  EXPECT_TRUE(plan->mem_cases.empty());
  EXPECT_TRUE(CheckNoOverlap(*plan).ok());
  EXPECT_EQ(plan->ToString(), "memory plan: 0 registers, 0 memory cases, steps [0,0]\n");
}

// 1000 random register sets over three memory cases: CheckNoOverlap agrees with the
// painting oracle, every offset is aligned, and no block is below its lower bound.
TEST(PlanMemoryTest, RandomRegisterSetsNeverOverlap) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 1000; ++trial) {
    const std::vector<RegisterDesc> regs = RandomRegisters(rng, 30);
    Result<MemoryPlan> plan = PlanMemory(regs);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_TRUE(CheckNoOverlap(*plan).ok()) << CheckNoOverlap(*plan).ToString();
    ExpectNoCollision(*plan);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "trial " << trial << "\n" << plan->ToString();
      return;
    }
  }
}

// MLP-like forwards of 20 ops: the ratio block / lower bound, reported, next to what first
// fit in start order alone would give.
TEST(PlanMemoryTest, MlpForwardRatioToLowerBound) {
  std::mt19937_64 rng(99);
  std::vector<double> ratios;
  std::vector<double> first_fit_ratios;
  std::vector<double> reuse;
  for (int trial = 0; trial < 1000; ++trial) {
    const TestPlan test_plan = MlpForwardPlan(rng, 20);
    std::vector<Lifetime> lifetimes;
    for (const RegisterDesc& d : test_plan.registers) lifetimes.push_back(d.lifetime);
    ASSERT_TRUE(CheckUsesWithinLifetimes(lifetimes, test_plan.steps).ok());
    Result<MemoryPlan> plan = PlanMemory(test_plan.registers);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_EQ(plan->mem_cases.size(), 1u);
    const MemCasePlan& mc = plan->mem_cases[0];
    ASSERT_GE(mc.block_bytes, mc.lower_bound);
    std::vector<PackItem> items;
    for (const PlannedRegister& r : plan->registers) {
      items.push_back(PackItem{r.layout.block_bytes, PackingLifetime(r.desc, plan->last_step)});
    }
    Result<Packing> first_fit = PackWith(items, {PackOrder::kStartAsc, PackFit::kFirstFit});
    ASSERT_TRUE(first_fit.ok());
    ASSERT_LE(mc.block_bytes, first_fit->block_size);
    const double lower = static_cast<double>(mc.lower_bound);
    ratios.push_back(static_cast<double>(mc.block_bytes) / lower);
    first_fit_ratios.push_back(static_cast<double>(first_fit->block_size) / lower);
    reuse.push_back(static_cast<double>(mc.block_bytes) / static_cast<double>(mc.no_reuse_bytes));
    if (trial == 0) std::printf("%s", plan->ToString().c_str());
  }
  for (auto* v : {&ratios, &first_fit_ratios, &reuse}) std::sort(v->begin(), v->end());
  const size_t n = ratios.size();
  std::printf(
      "MLP forward (20 ops), %zu instances: block / lower bound median %.4f, p90 %.4f, max "
      "%.4f; start-asc/first-fit alone median %.4f, p90 %.4f, max %.4f; block / no-reuse "
      "median %.4f\n",
      n, ratios[n / 2], ratios[n * 9 / 10], ratios.back(), first_fit_ratios[n / 2],
      first_fit_ratios[n * 9 / 10], first_fit_ratios.back(), reuse[n / 2]);
  EXPECT_LE(ratios[n / 2], 1.1);
}

TEST(PlanMemoryTest, BadRegistersAreNamed) {
  Result<MemoryPlan> plan =
      PlanMemory({MakeRegister("ok", {2}, {0, 1}), MakeRegister("bad", {2}, {3, 1})});
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(plan.status().message(),
            "PlanMemory: register \"bad\" (#1): lifetime [3,1] ends (step 1) before it starts "
            "(step 3)");
  plan = PlanMemory({MakeRegister("z", {2}, {0, 1}, MemCase::Host(), 0)});
  EXPECT_EQ(plan.status().message(),
            "PlanMemory: register \"z\" (#0): register_num is 0; it must be >= 1");
  plan = PlanMemory({MakeRegister("m", {2}, {0, 1}, MemCase::Cuda(-1))});
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  // Two 2^62-byte registers: each fits int64, their block does not.
  const int64_t quarter = int64_t{1} << 60;  // f32 elements
  plan = PlanMemory(
      {MakeRegister("big0", {quarter}, {0, 0}), MakeRegister("big1", {quarter}, {1, 1})});
  EXPECT_EQ(plan.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(plan.status().message().find("register \"big1\" (#1): the cpu block overflows"),
            std::string::npos)
      << plan.status().message();
}

class CheckNoOverlapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<MemoryPlan> plan = PlanMemory(
        {MakeRegister("a", {300}, {0, 2}), MakeRegister("b", {300}, {1, 3}),
         MakeRegister("c", {300}, {3, 4}), MakeRegister("d", {300}, {0, 4}, MemCase::Cuda(0)),
         MakeRegister("e", {300}, {2, 2}, MemCase::Cuda(0))});
    ASSERT_TRUE(plan.ok());
    plan_ = *plan;
    ASSERT_TRUE(CheckNoOverlap(plan_).ok());
  }
  std::string Error() {
    const Status s = CheckNoOverlap(plan_);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return s.message();
  }
  MemoryPlan plan_;
};

TEST_F(CheckNoOverlapTest, LiveRegistersSharingBytes) {
  plan_.registers[1].offset = plan_.registers[0].offset + 512;
  plan_.mem_cases[0].block_bytes += 2048;
  const std::string message = Error();
  EXPECT_NE(message.find("register \"a\" (#0) (lifetime [0,2]"), std::string::npos) << message;
  EXPECT_NE(message.find("register \"b\" (#1) (lifetime [1,3]"), std::string::npos) << message;
  EXPECT_NE(message.find("both live at steps [1,2]"), std::string::npos) << message;
}

TEST_F(CheckNoOverlapTest, HeadersAreNeverShared) {
  plan_.registers[4].header_offset = plan_.registers[3].header_offset;
  EXPECT_NE(Error().find("share header bytes [0,64); headers are never shared"), std::string::npos);
  SetUp();
  // a [0,2] and c [3,4] may share bodies but not headers.
  plan_.registers[2].header_offset = plan_.registers[0].header_offset;
  const std::string message = Error();
  EXPECT_NE(message.find("register \"a\" (#0) (lifetime [0,2], header bytes [0,64))"),
            std::string::npos)
      << message;
}

TEST_F(CheckNoOverlapTest, DeadRegistersMayShareBodies) {
  // a [0,2] and c [3,4] never live together.
  plan_.registers[2].offset = plan_.registers[0].offset;
  EXPECT_TRUE(CheckNoOverlap(plan_).ok());
}

TEST_F(CheckNoOverlapTest, MisalignedOrOutsideTheBlock) {
  plan_.registers[0].offset += 64;
  EXPECT_NE(Error().find("block offset 64 is not a non-negative multiple of 512"),
            std::string::npos);
  SetUp();
  plan_.registers[0].offset = plan_.mem_cases[0].block_bytes;
  EXPECT_NE(Error().find("exceed the block of"), std::string::npos);
  SetUp();
  plan_.registers[3].header_offset = 32;
  EXPECT_NE(Error().find("header offset 32 is not a non-negative multiple of 64"),
            std::string::npos);
  SetUp();
  plan_.registers[0].header_offset = -64;
  EXPECT_NE(Error().find("header offset -64"), std::string::npos);
  SetUp();
  plan_.registers[0].header_offset = plan_.mem_cases[0].header_bytes;
  EXPECT_NE(Error().find("exceed the header area of 192 bytes"), std::string::npos);
}

TEST_F(CheckNoOverlapTest, StaleLayoutsAndDescriptors) {
  plan_.registers[0].desc.shape = Shape({3000});
  EXPECT_NE(Error().find("does not match its descriptor"), std::string::npos);
  SetUp();
  plan_.registers[1].desc.lifetime = Lifetime{5, 0};
  EXPECT_NE(Error().find("CheckNoOverlap: register \"b\" (#1): lifetime [5,0]"), std::string::npos);
  SetUp();
  plan_.last_step = 9;
  EXPECT_NE(Error().find("last_step is 9"), std::string::npos);
}

TEST_F(CheckNoOverlapTest, MemoryCaseListings) {
  plan_.mem_cases[0].register_ids.push_back(0);
  EXPECT_NE(Error().find("is listed twice in cpu"), std::string::npos);
  SetUp();
  plan_.mem_cases[0].register_ids.pop_back();
  EXPECT_NE(Error().find("register \"c\" (#2) is listed by no memory case"), std::string::npos);
  SetUp();
  plan_.mem_cases[0].register_ids.push_back(3);
  EXPECT_NE(Error().find("lives in cuda:0 but memory case cpu lists it"), std::string::npos);
  SetUp();
  plan_.mem_cases[0].register_ids.push_back(17);
  EXPECT_NE(Error().find("lists register #17 but the plan has 5 registers"), std::string::npos);
  SetUp();
  std::swap(plan_.mem_cases[0], plan_.mem_cases[1]);
  EXPECT_NE(Error().find("not in strictly ascending order"), std::string::npos);
}

}  // namespace
}  // namespace tessera::plan
