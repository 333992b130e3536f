// tess_runtime_topology, tess_runtime_rank_host and tess_runtime_topology_string against
// the hosts the launcher made, found without the code under test: pretend hosts of
// TESSERA_RANKS_PER_HOST=k (world rank r on host r / k), else the hosts
// tools/multihost.sh states (tests/comm/real_hosts.h; a plain mpirun is one host), and
// the host names gathered here with gethostname.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"
#include "tests/comm/real_hosts.h"

namespace tessera::capi_test {
namespace {

std::string LastError() { return tess_last_error_message(); }

// The expected host of every world rank.
struct Expected {
  std::vector<int32_t> host_of;
  int32_t hosts = 0;
  int32_t pretend = 0;
};

Expected ExpectedHosts(int32_t world_size) {
  Expected e;
  const char* pretend = std::getenv("TESSERA_RANKS_PER_HOST");
  int32_t per_host = 0;
  if (pretend != nullptr && *pretend != '\0') {
    e.pretend = per_host = std::atoi(pretend);
  } else {
    per_host = comm::RealHostsOfTest(world_size).ranks_per_host;  // placed by block
  }
  for (int32_t r = 0; r < world_size; ++r) e.host_of.push_back(r / per_host);
  e.hosts = (world_size + per_host - 1) / per_host;
  return e;
}

// Every rank's gethostname, by world rank.
std::vector<std::string> HostNames(int32_t world_size) {
  char mine[256] = {};
  EXPECT_EQ(gethostname(mine, sizeof(mine) - 1), 0);
  std::vector<char> all(256 * world_size);
  EXPECT_EQ(MPI_Allgather(mine, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, MPI_COMM_WORLD),
            MPI_SUCCESS);
  std::vector<std::string> names;
  for (int32_t r = 0; r < world_size; ++r) names.emplace_back(all.data() + 256 * r);
  return names;
}

// Runs first (declaration order): nothing is found before tess_runtime_init.
TEST(TopologyCapiTest, BeforeInitNothingIsFound) {
  tess_topology t = TESS_TOPOLOGY_INIT;
  EXPECT_EQ(tess_runtime_topology(&t), TESS_FAILED_PRECONDITION);
  EXPECT_NE(LastError().find("tess_runtime_init"), std::string::npos) << LastError();
  int32_t host = -5, local = -5;
  EXPECT_EQ(tess_runtime_rank_host(&host, &local, 0), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(host, -5);
  EXPECT_STREQ(tess_runtime_topology_string(), "");
  ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError();
}

TEST(TopologyCapiTest, FieldsMatchTheLaunchersHosts) {
  const int32_t n = WorldSize(), me = WorldRank();
  const Expected e = ExpectedHosts(n);
  tess_topology t = TESS_TOPOLOGY_INIT;
  ASSERT_EQ(tess_runtime_topology(&t), TESS_OK) << LastError();
  EXPECT_EQ(t.struct_size, sizeof(tess_topology));
  EXPECT_EQ(t.world_size, n);
  EXPECT_EQ(t.world_rank, me);
  EXPECT_EQ(t.host_count, e.hosts);
  EXPECT_EQ(t.host_index, e.host_of[me]);
  int32_t local = 0, local_size = 0, fewest = n, most = 0;
  for (int32_t h = 0; h < e.hosts; ++h) {
    int32_t size = 0;
    for (int32_t r = 0; r < n; ++r) size += e.host_of[r] == h;
    fewest = std::min(fewest, size);
    most = std::max(most, size);
    if (h == e.host_of[me]) local_size = size;
  }
  for (int32_t r = 0; r < me; ++r) local += e.host_of[r] == e.host_of[me];
  EXPECT_EQ(t.local_rank, local);
  EXPECT_EQ(t.local_size, local_size);
  EXPECT_EQ(t.min_ranks_per_host, fewest);
  EXPECT_EQ(t.max_ranks_per_host, most);
  EXPECT_EQ(t.pretend_ranks_per_host, e.pretend);
  int32_t built_with_cuda = 0, devices = 0;
  ASSERT_EQ(tess_runtime_cuda_info(&built_with_cuda, &devices), TESS_OK) << LastError();
  if (devices == 0) {
    EXPECT_EQ(t.cuda_device, -1);
  } else {
    EXPECT_EQ(t.cuda_device, local % devices);  // local rank % devices
  }

  for (int32_t r = 0; r < n; ++r) {
    int32_t host = -1, local_rank = -1, expected_local = 0;
    for (int32_t q = 0; q < r; ++q) expected_local += e.host_of[q] == e.host_of[r];
    ASSERT_EQ(tess_runtime_rank_host(&host, &local_rank, r), TESS_OK) << LastError();
    EXPECT_EQ(host, e.host_of[r]) << "rank " << r;
    EXPECT_EQ(local_rank, expected_local) << "rank " << r;
  }
}

TEST(TopologyCapiTest, AnOlderCallersStructGetsOnlyItsFields) {
  // A caller compiled against the first version (up to cuda_device) is this version; one
  // that knows fewer bytes than the first version is refused; bytes past this library's
  // struct stay the caller's.
  struct Bigger {
    tess_topology t;
    int64_t tail;
  } big;
  big.t = TESS_TOPOLOGY_INIT;
  big.t.struct_size = sizeof(Bigger);
  big.tail = 77;
  ASSERT_EQ(tess_runtime_topology(&big.t), TESS_OK) << LastError();
  EXPECT_EQ(big.tail, 77);
  EXPECT_EQ(big.t.world_size, WorldSize());
  tess_topology small = TESS_TOPOLOGY_INIT;
  small.struct_size = offsetof(tess_topology, cuda_device);  // below the first version
  small.world_size = -3;
  EXPECT_EQ(tess_runtime_topology(&small), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("struct_size"), std::string::npos) << LastError();
  EXPECT_EQ(small.world_size, -3);
}

TEST(TopologyCapiTest, RankHostRefusesRanksOutsideTheWorld) {
  const int32_t n = WorldSize();
  int32_t host = -5, local = -5;
  EXPECT_EQ(tess_runtime_rank_host(&host, &local, n), TESS_OUT_OF_RANGE);
  EXPECT_NE(LastError().find("world_rank " + std::to_string(n)), std::string::npos) << LastError();
  EXPECT_NE(LastError().find(std::to_string(n) + " ranks"), std::string::npos) << LastError();
  EXPECT_EQ(tess_runtime_rank_host(&host, &local, -1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_runtime_rank_host(nullptr, &local, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_runtime_rank_host(&host, nullptr, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(host, -5);
  EXPECT_EQ(local, -5);
  EXPECT_EQ(tess_runtime_topology(nullptr), TESS_INVALID_ARGUMENT);
}

TEST(TopologyCapiTest, TheTextListsEveryHostWithItsNameAndRanks) {
  const int32_t n = WorldSize();
  const Expected e = ExpectedHosts(n);
  const std::vector<std::string> names = HostNames(n);
  std::string expected = std::to_string(n) + (n == 1 ? " rank on " : " ranks on ") +
                         std::to_string(e.hosts) + (e.hosts == 1 ? " host" : " hosts");
  expected += e.pretend > 0
                  ? " (pretend hosts: TESSERA_RANKS_PER_HOST=" + std::to_string(e.pretend) + ")\n"
                  : " (found with MPI_COMM_TYPE_SHARED)\n";
  for (int32_t h = 0; h < e.hosts; ++h) {
    std::vector<int32_t> ranks;
    for (int32_t r = 0; r < n; ++r) {
      if (e.host_of[r] == h) ranks.push_back(r);
    }
    // Blocks of consecutive ranks: "a" or "a-b".
    const std::string list =
        ranks.size() == 1 ? std::to_string(ranks[0])
                          : std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
    expected += "host " + std::to_string(h) + " \"" + names[ranks[0]] + "\": rank" +
                (ranks.size() == 1 ? " " : "s ") + list + "\n";
  }
  const char* link = std::getenv("TESSERA_HOST_LINK_GBITS");
  const bool measured = link != nullptr && std::string(link) == "measure";
  if (e.hosts > 1 && !measured) {
    expected += link != nullptr && *link != '\0'
                    ? std::string("host links: ") + link + " Gbit/s (TESSERA_HOST_LINK_GBITS)\n"
                    : "host links: 10 Gbit/s (default)\n";
  }
  int32_t built_with_cuda = 0, devices = 0;
  ASSERT_EQ(tess_runtime_cuda_info(&built_with_cuda, &devices), TESS_OK) << LastError();
  const std::string text = tess_runtime_topology_string();
  if (measured) {  // the speed measured: only the line's form is known
    const size_t at = text.find("host links: ");
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_EQ(text.substr(0, at), expected);
    EXPECT_NE(text.find(" Gbit/s (measured)\n", at), std::string::npos) << text;
    return;
  }
  if (devices == 0) {
    EXPECT_EQ(text, expected);
  } else {  // each host line is followed by its ranks' device lines
    EXPECT_EQ(text.substr(0, text.find('\n')), expected.substr(0, expected.find('\n')));
    EXPECT_NE(text.find("rank 0: cuda:"), std::string::npos) << text;
  }
  EXPECT_EQ(tess_runtime_topology_string(), tess_runtime_topology_string());  // made once
}

// Across hosts the boxing planner prices host links (core/boxing/host_links.h, set by
// tess_runtime_init): (P, P) -> (B, B) on a 2 x 2 grid whose rows are hosts goes host
// by host (reduce-scatter within, all-reduce across, all-gather within); on one host it
// is one all-reduce over the grid. With TESSERA_HOST_LINK_GBITS=measure the speed comes
// from a measurement instead, and only the pretend hosts' shared memory is there to
// measure, so only a valid plan is asked for.
TEST(TopologyCapiTest, BoxingPricesTheHostLinks) {
  if (WorldSize() != 4) GTEST_SKIP() << "needs a 2 x 2 grid of ranks";
  const Expected e = ExpectedHosts(4);
  tess_placement* grid = nullptr;
  tess_nd_sbp *pp = nullptr, *bb = nullptr;
  ASSERT_EQ(tess_placement_parse(&grid, "cpu:[[0,1],[2,3]]"), TESS_OK);
  ASSERT_EQ(tess_nd_sbp_parse(&pp, "(P, P)"), TESS_OK);
  ASSERT_EQ(tess_nd_sbp_parse(&bb, "(B, B)"), TESS_OK);
  const int64_t shape[] = {4096, 4096};
  tess_boxing_plan* plan = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&plan, shape, 2, TESS_DTYPE_F32, grid, pp, grid, bb), TESS_OK)
      << LastError();
  size_t steps = 0;
  ASSERT_EQ(tess_boxing_plan_num_steps(&steps, plan), TESS_OK);
  const std::string text = tess_boxing_plan_string(plan);
  const char* measure = std::getenv("TESSERA_HOST_LINK_GBITS");
  if (measure != nullptr && std::string(measure) == "measure") {
    EXPECT_GE(steps, 1u) << text;
  } else if (e.hosts == 2) {  // rows are hosts
    ASSERT_EQ(steps, 3u) << text;
    EXPECT_NE(std::string(tess_boxing_plan_step_string(plan, 0)).find("axis 1: P -> S"),
              std::string::npos)
        << text;
    EXPECT_NE(std::string(tess_boxing_plan_step_string(plan, 1)).find("axis 0: P -> B  all-reduce"),
              std::string::npos)
        << text;
    EXPECT_NE(std::string(tess_boxing_plan_step_string(plan, 2)).find("all-gather"),
              std::string::npos)
        << text;
  } else {
    EXPECT_EQ(steps, 1u) << text;
  }
  tess_boxing_plan_destroy(plan);
  tess_nd_sbp_destroy(pp);
  tess_nd_sbp_destroy(bb);
  tess_placement_destroy(grid);
}

// The bucketed all-reducer goes host by host where that measures faster when the ranks
// span hosts (tess_bucketed_allreducer_run; one host: shared memory): buckets of 1.2 MB,
// past the hierarchical threshold, run through every trial form and then the chosen
// one, exact every time. Sums of small integers, so exact in f32 in any order.
TEST(TopologyCapiTest, BucketedAllReduceIsExactThroughTheTrialsAndAfter) {
  const int32_t n = WorldSize(), me = WorldRank();
  tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  o.bucket_bytes = 1200000;
  tess_bucketed_allreducer* reducer = nullptr;
  ASSERT_EQ(tess_bucketed_allreducer_create(&reducer, &o), TESS_OK) << LastError();
  const std::vector<int64_t> counts = {300000, 7, 299993, 5, 300000};
  std::vector<std::vector<float>> buffers(counts.size());
  for (int call = 0; call < 9; ++call) {  // more than 3 forms x 2 trials
    std::vector<void*> pointers;
    for (size_t b = 0; b < counts.size(); ++b) {
      buffers[b].resize(counts[b]);
      for (int64_t i = 0; i < counts[b]; ++i) buffers[b][i] = float(me + 1 + (i + b + call) % 7);
      pointers.push_back(buffers[b].data());
    }
    ASSERT_EQ(tess_bucketed_allreducer_run(reducer, pointers.data(), counts.data(), counts.size(),
                                           TESS_DTYPE_F32, TESS_REDUCE_SUM, nullptr),
              TESS_OK)
        << LastError();
    const float ranks = float(n) * float(n + 1) / 2;
    for (size_t b = 0; b < counts.size(); ++b) {
      for (int64_t i = 0; i < counts[b]; ++i) {
        ASSERT_EQ(buffers[b][i], ranks + float(n) * float((i + b + call) % 7))
            << "call " << call << " buffer " << b << " element " << i;
      }
    }
  }
  tess_bucketed_allreducer_destroy(reducer);
}

}  // namespace
}  // namespace tessera::capi_test
