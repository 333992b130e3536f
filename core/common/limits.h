// The documented limits on sizes read from input (docs/c-api.md, "Limits"): a value
// past one is INVALID_ARGUMENT naming it, never an overflow, a hang or an allocation in
// proportion to a number read.
#ifndef TESSERA_CORE_COMMON_LIMITS_H_
#define TESSERA_CORE_COMMON_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/status.h"

namespace tessera {

// Longest timeout in seconds (~11.6 days). A std::chrono conversion of much larger
// doubles overflows its integer ticks.
inline constexpr double kMaxTimeoutSeconds = 1e6;

// Most ranks one placement holds; a parsed range such as "cpu:0-N" is refused past it
// before any rank is stored. Rank ids themselves are below 2^31.
inline constexpr int64_t kMaxPlacementRanks = int64_t{1} << 20;

// Longest placement or nd-SBP text accepted by the parsers.
inline constexpr size_t kMaxParsedTextLength = size_t{1} << 16;

// OK when `seconds` <= kMaxTimeoutSeconds; otherwise (also for NaN and +inf)
// INVALID_ARGUMENT "<where><field> is <seconds>; the longest timeout is 1e+06 s (~11.6
// days)". What a negative value means differs by caller (no limit, keep the default,
// wait forever), so each checks the low end itself, then this. The name comes in two
// parts, joined only for the error: plan pushes and collectives call this on every
// call, and the passing check allocates nothing.
Status CheckTimeoutAtMostMax(std::string_view where, std::string_view field, double seconds);

// OK when `text` is at most kMaxParsedTextLength characters; otherwise INVALID_ARGUMENT
// "<what> text is N characters long; at most 65536 are accepted". Every parser of
// input text checks this first, so its work is bounded whatever the text holds.
Status CheckParsedTextLength(std::string_view what, std::string_view text);

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_LIMITS_H_
