// Argument checks shared by the Communicator front end and the collectives built on
// it (bucketed all-reduce). Each returns INVALID_ARGUMENT / OUT_OF_RANGE whose
// message starts with `method` and names the argument and its value.
#ifndef TESSERA_CORE_COMM_COMM_CHECKS_H_
#define TESSERA_CORE_COMM_COMM_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

// A dtype value that names a dtype communicators carry (f32, f64, f16, bf16, i32, i64,
// bool).
Status CheckCommDType(const char* method, DType dtype);
// Sum, max or min.
Status CheckReduceOp(const char* method, ReduceOp op);
// A dtype the reductions are defined on: every supported dtype but bool.
Status CheckReducibleDType(const char* method, DType dtype);
// 0 <= count <= max; `name` is how the message calls it ("count", "tensors[3].count").
Status CheckCount(const char* method, const char* name, int64_t count, int64_t max);
// A NULL buffer only where it holds no elements.
Status CheckBuffer(const char* method, const char* name, const void* buffer, int64_t count);
// A per-rank vector argument `name` with `entries` entries, on `size` ranks.
Status CheckEntries(const char* method, const char* name, size_t entries, int32_t size);
// What `rank` sends itself (`sent`) must be what it receives from itself: entry
// `rank` of `recv_name`, which `verb` ("is", "holds") `received` elements.
Status CheckToSelf(const char* method, int32_t rank, int64_t sent, const char* recv_name,
                   const char* verb, int64_t received);
// One block per rank, each a box inside its tensor holding at most `max` elements;
// `total` receives their element count.
Status CheckBlocks(const char* method, const char* name, const std::vector<BlockView>& blocks,
                   int32_t size, int64_t max, int64_t* total);
// A timeout: a finite number of seconds >= 0 (0 = no limit), at most kMaxTimeoutSeconds.
Status CheckTimeout(const char* method, double seconds);
// std::to_string, shorter at call sites that build messages.
std::string Str(int64_t value);
// Seconds as a person writes them: "0.3", "30", "nan" ("%g").
std::string SecondsText(double seconds);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_COMM_CHECKS_H_
