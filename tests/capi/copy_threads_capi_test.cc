// tess_runtime_init sets the threads of the pinned staging's host copies
// (core/device/host_copy.h) from TESSERA_COPY_THREADS, or to the process's share of the
// machine's hardware threads. One program, run by three targets (BUILD.bazel) whose
// environment differs; TESSERA_TEST_EXPECT says what this run must see: "default",
// a count, or "refused:<message>".
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "core/device/host_copy.h"
#include "tessera/tessera.h"

namespace {

std::string Expectation() {
  const char* e = std::getenv("TESSERA_TEST_EXPECT");
  return e == nullptr ? "" : e;
}

TEST(CopyThreadsCapiTest, InitSetsOrRefusesTheCopyThreads) {
  const std::string expect = Expectation();
  ASSERT_FALSE(expect.empty()) << "TESSERA_TEST_EXPECT is not set (see BUILD.bazel)";
  const tess_status status = tess_runtime_init();
  const std::string refused = "refused:";
  if (expect.rfind(refused, 0) == 0) {
    EXPECT_EQ(status, TESS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(tess_last_error_message()), expect.substr(refused.size()));
    return;
  }
  ASSERT_EQ(status, TESS_OK) << tess_last_error_message();
  // One process: its machine's share is every hardware thread, capped.
  const int expected = expect == "default"
                           ? tessera::device::DefaultCopyThreads(
                                 static_cast<int>(std::thread::hardware_concurrency()), 1)
                           : std::stoi(expect);
  EXPECT_EQ(tessera::device::CopyThreads(), expected);
  EXPECT_EQ(tess_runtime_finalize(), TESS_OK) << tess_last_error_message();
}

}  // namespace
