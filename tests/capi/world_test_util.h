// The world as the multi-rank C API tests see it, through tessera.h only: this rank,
// the number of ranks, and placement texts over them.
#ifndef TESSERA_TESTS_CAPI_WORLD_TEST_UTIL_H_
#define TESSERA_TESTS_CAPI_WORLD_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace tessera::capi_test {

inline int WorldSize() {
  int32_t n = 0;
  EXPECT_EQ(tess_runtime_world_size(&n), TESS_OK) << tess_last_error_message();
  return n;
}

inline int WorldRank() {
  int32_t r = -1;
  EXPECT_EQ(tess_runtime_world_rank(&r), TESS_OK) << tess_last_error_message();
  return r;
}

// 0, 1, ..., size - 1.
inline std::vector<int> WorldRanks() {
  std::vector<int> ranks;
  for (int r = 0; r < WorldSize(); ++r) ranks.push_back(r);
  return ranks;
}

// "cpu:[a,b,...]" of `ranks`, in their order.
inline std::string CpuOf(const std::vector<int>& ranks) {
  std::string text = "cpu:[";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
  return text + "]";
}

}  // namespace tessera::capi_test

#endif  // TESSERA_TESTS_CAPI_WORLD_TEST_UTIL_H_
