#include "core/comm/comm_checks.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/common/limits.h"

namespace tessera::comm {

std::string Str(int64_t value) { return std::to_string(value); }

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

Status CheckCommDType(const char* method, DType dtype) {
  if (!IsValidDType(static_cast<int>(dtype))) {
    return InvalidArgument(std::string(method) + ": dtype value " + Str(static_cast<int>(dtype)) +
                           " is not a dtype");
  }
  if (!IsSupported(dtype)) {
    return InvalidArgument(
        std::string(method) + ": dtype " + DTypeName(dtype) +
        " is not supported by communicators (supported: f32, f64, f16, bf16, i32, i64, bool)");
  }
  return Status::Ok();
}

Status CheckReduceOp(const char* method, ReduceOp op) {
  if (op != ReduceOp::kSum && op != ReduceOp::kMax && op != ReduceOp::kMin) {
    return InvalidArgument(std::string(method) + ": reduce op value " + Str(static_cast<int>(op)) +
                           " is not sum, max or min");
  }
  return Status::Ok();
}

Status CheckReducibleDType(const char* method, DType dtype) {
  if (dtype != DType::kBool) return Status::Ok();
  return InvalidArgument(std::string(method) +
                         ": dtype bool has no sum, max or min reduction (supported: f32, f64, "
                         "f16, bf16, i32, i64)");
}

Status CheckCount(const char* method, const char* name, int64_t count, int64_t max) {
  if (count < 0) {
    return InvalidArgument(std::string(method) + ": " + name + " is " + Str(count) +
                           "; it must be >= 0");
  }
  if (count > max) {
    return OutOfRange(std::string(method) + ": " + name + " is " + Str(count) +
                      ", more than this backend's limit of " + Str(max) + " elements");
  }
  return Status::Ok();
}

Status CheckBuffer(const char* method, const char* name, const void* buffer, int64_t count) {
  if (buffer == nullptr && count > 0) {
    return InvalidArgument(std::string(method) + ": " + name + " is NULL but holds " + Str(count) +
                           " elements");
  }
  return Status::Ok();
}

Status CheckEntries(const char* method, const char* name, size_t entries, int32_t size) {
  if (static_cast<int64_t>(entries) != size) {
    return InvalidArgument(std::string(method) + ": " + name + " has " + Str(entries) +
                           " entries but the communicator has " + Str(size) + " ranks");
  }
  return Status::Ok();
}

Status CheckToSelf(const char* method, int32_t rank, int64_t sent, const char* recv_name,
                   const char* verb, int64_t received) {
  if (sent != received) {
    return InvalidArgument(std::string(method) + ": this rank (" + Str(rank) + ") sends " +
                           Str(sent) + " elements to itself but " + recv_name + "[" + Str(rank) +
                           "] " + verb + " " + Str(received));
  }
  return Status::Ok();
}

Status CheckBlocks(const char* method, const char* name, const std::vector<BlockView>& blocks,
                   int32_t size, int64_t max, int64_t* total) {
  TESS_RETURN_IF_ERROR(CheckEntries(method, name, blocks.size(), size));
  int64_t sum = 0;
  for (size_t r = 0; r < blocks.size(); ++r) {
    const BlockView& b = blocks[r];
    // Built only on failure: the checks run on every call of a hot path.
    auto entry = [&] { return std::string(method) + ": " + name + "[" + Str(r) + "]"; };
    if (b.box.ndim() != b.tensor.ndim()) {
      return InvalidArgument(entry() + " has a " + Str(b.box.ndim()) + "-d box " +
                             b.box.ToString() + " in a " + Str(b.tensor.ndim()) + "-d tensor " +
                             b.tensor.ToString());
    }
    for (int d = 0; d < b.box.ndim(); ++d) {
      if (b.begin[d] < 0 || b.box.dim(d) < 0 || b.tensor.dim(d) < 0 ||
          b.begin[d] > b.tensor.dim(d) - b.box.dim(d)) {
        return OutOfRange(entry() + ": box " + b.box.ToString() + " at begin[" + Str(d) +
                          "] = " + Str(b.begin[d]) + " does not fit dim " + Str(d) +
                          " of the tensor " + b.tensor.ToString());
      }
    }
    const int64_t count = b.num_elements();
    if (count > max) {
      return OutOfRange(entry() + " holds " + Str(count) + " elements, more than this " +
                        "backend's limit of " + Str(max));
    }
    sum += count;
  }
  if (total != nullptr) *total = sum;
  return Status::Ok();
}

Status CheckTimeout(const char* method, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return InvalidArgument(std::string(method) + ": seconds is " + SecondsText(seconds) +
                           "; it must be a finite number >= 0 (0 = no limit)");
  }
  return CheckTimeoutAtMostMax(method, ": seconds", seconds);
}

}  // namespace tessera::comm
