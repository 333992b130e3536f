// The warm paths of tess_boxing_run, tess_comm_allreduce and tess_bucketed_allreducer_run under
// mpirun: once a boxing's plan, communicators and staging exist (and a reducer's
// plan), repeating the call allocates nothing on the heap. The allocation counter
// replaces global operator new in this binary and counts per thread (MPI's own
// memory comes from malloc and is not counted).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "core/memory/heap_counter.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

constexpr int kCalls = 20;

// Allocations made by `call` run kCalls times after three warm-up runs.
template <typename Call>
long WarmAllocations(Call call) {
  for (int i = 0; i < 3; ++i) call();
  const long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < kCalls; ++i) call();
  return memory::ThreadHeapAllocations() - before;
}

TEST(BoxingCapiAllocTest, WarmBoxAllocatesNothing) {
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  NdSbpPtr s0 = NdSbp("S(0)"), s1 = NdSbp("S(1)"), b = NdSbp("B"), p = NdSbp("P");
  const int64_t shape[] = {64, 48};
  // Each rank's piece sizes under S(0), S(1) (balanced splits) and B / P.
  auto part = [](int64_t dim, int n, int r) { return dim / n + (r < dim % n ? 1 : 0); };
  const int n = WorldSize(), me = WorldRank();
  std::vector<float> rows(part(64, n, me) * 48, 1.0f), cols(64 * part(48, n, me), 0.0f);
  std::vector<float> whole(64 * 48, 0.5f), out(64 * 48);
  struct Case {
    const char* name;
    const tess_nd_sbp* src;
    const tess_nd_sbp* dst;
    const std::vector<float>* in;
    std::vector<float>* out;
  };
  const Case cases[] = {
      {"S(0) -> S(1)", s0.get(), s1.get(), &rows, &cols},
      {"S(0) -> B", s0.get(), b.get(), &rows, &out},
      {"P -> B", p.get(), b.get(), &whole, &out},
      {"B -> S(1)", b.get(), s1.get(), &whole, &cols},
  };
  for (const Case& c : cases) {
    const long n_alloc = WarmAllocations([&] {
      EXPECT_EQ(tess_boxing_run(c.out->data(), c.out->size() * sizeof(float), c.in->data(),
                                c.in->size() * sizeof(float), shape, 2, TESS_DTYPE_F32, world.get(),
                                c.src, world.get(), c.dst),
                TESS_OK)
          << LastError();
    });
    EXPECT_EQ(n_alloc, 0) << c.name;
  }
}

TEST(BoxingCapiAllocTest, WarmAllReducesAllocateNothing) {
  std::vector<float> v(1000, 1.0f);
  for (tess_allreduce_algorithm a :
       {TESS_ALLREDUCE_FLAT, TESS_ALLREDUCE_AUTO, TESS_ALLREDUCE_HIERARCHICAL}) {
    EXPECT_EQ(WarmAllocations([&] {
                EXPECT_EQ(tess_comm_allreduce(v.data(), 1000, TESS_DTYPE_F32, TESS_REDUCE_MAX,
                                              nullptr, a),
                          TESS_OK)
                    << LastError();
              }),
              0)
        << "algorithm " << a;
  }
  tess_bucketed_allreducer* r = nullptr;
  tess_bucketed_allreducer_options options = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  options.bucket_bytes = 1024;
  ASSERT_EQ(tess_bucketed_allreducer_create(&r, &options), TESS_OK);
  std::vector<std::vector<float>> data;
  std::vector<void*> buffers;
  std::vector<int64_t> counts;
  for (int i = 0; i < 50; ++i) counts.push_back((i * 31) % 400);
  for (int64_t c : counts) data.emplace_back(static_cast<size_t>(c), 1.0f);
  for (auto& d : data) buffers.push_back(d.empty() ? nullptr : d.data());
  EXPECT_EQ(WarmAllocations([&] {
              EXPECT_EQ(tess_bucketed_allreducer_run(r, buffers.data(), counts.data(), 50,
                                                     TESS_DTYPE_F32, TESS_REDUCE_MAX, nullptr),
                        TESS_OK)
                  << LastError();
            }),
            0);
  tess_bucketed_allreducer_destroy(r);
}

}  // namespace
}  // namespace tessera::capi_test
