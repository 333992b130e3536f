#include "core/comm/deadline.h"

#include <gtest/gtest.h>

#include <chrono>

namespace tessera::comm {
namespace {

double SecondsSince(PollClock::time_point start) {
  return std::chrono::duration<double>(PollClock::now() - start).count();
}

TEST(PollUntilTest, DoneOnTheFirstPoll) {
  int polls = 0;
  Result<bool> r = PollUntil(DeadlineFrom(PollClock::now(), 10), false, [&]() -> Result<bool> {
    ++polls;
    return true;
  });
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
  EXPECT_EQ(polls, 1);
}

TEST(PollUntilTest, PastDeadlineStillPollsOnce) {
  int polls = 0;
  const PollClock::time_point start = PollClock::now();
  Result<bool> r = PollUntil(DeadlineFrom(start - std::chrono::seconds(5), 1), false,
                             [&]() -> Result<bool> { return ++polls == 1; });
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r) << "done at the first poll, though the deadline had passed";
}

TEST(PollUntilTest, GivesUpAtTheDeadline) {
  const PollClock::time_point start = PollClock::now();
  int polls = 0;
  Result<bool> r = PollUntil(DeadlineFrom(start, 0.2), false, [&]() -> Result<bool> {
    ++polls;
    return false;
  });
  const double elapsed = SecondsSince(start);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_GE(elapsed, 0.2);
  EXPECT_LT(elapsed, 0.2 + 0.5) << "overran the deadline by far";
  EXPECT_GT(polls, kSpinPolls) << "spins first, then keeps polling while it waits";
}

TEST(PollUntilTest, KeepsPollingUntilDone) {
  // Done on a later poll, past the spinning and the yielding phases.
  const PollClock::time_point start = PollClock::now();
  Result<bool> r = PollUntil(DeadlineFrom(start, 0), true,
                             [&]() -> Result<bool> { return SecondsSince(start) > 0.15; });
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r) << "forever ignores the deadline (0 s here)";
  EXPECT_GE(SecondsSince(start), 0.15);
}

TEST(PollUntilTest, StopsAtTheFirstError) {
  int polls = 0;
  Result<bool> r = PollUntil(DeadlineFrom(PollClock::now(), 10), false, [&]() -> Result<bool> {
    if (++polls == 3) return Internal("poll failed");
    return false;
  });
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "poll failed");
  EXPECT_EQ(polls, 3);
}

}  // namespace
}  // namespace tessera::comm
