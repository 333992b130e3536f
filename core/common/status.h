// Status and Result<T>: how every fallible function in the core reports failure.
// No exceptions leave the core; the C API turns a Status into a code plus a
// thread-local message.
#ifndef TESSERA_CORE_COMMON_STATUS_H_
#define TESSERA_CORE_COMMON_STATUS_H_

#include <optional>
#include <string>
#include <utility>

namespace tessera {

// Numbered like absl's canonical codes so the C API can expose them unchanged.
// Append only: these values are part of the C ABI (tess_status).
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

// Stable upper-case name of a code, e.g. "INVALID_ARGUMENT".
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // OK. An OK status holds an empty string, which does not allocate.
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: <message>", or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status InvalidArgument(std::string message);
Status OutOfRange(std::string message);
Status NotFound(std::string message);
Status FailedPrecondition(std::string message);
Status Unimplemented(std::string message);
Status Internal(std::string message);
Status Unavailable(std::string message);
Status DeadlineExceeded(std::string message);

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) {
      status_ = Internal("Result constructed from an OK status without a value");
    }
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // Precondition: ok().
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
const Status& AsStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace tessera

#define TESS_CONCAT_INNER_(a, b) a##b
#define TESS_CONCAT_(a, b) TESS_CONCAT_INNER_(a, b)

// Returns the status of `expr` (a Status or a Result<T>) from the enclosing
// function when it is not OK. Plain C++: no statement expressions, nvcc-safe.
#define TESS_RETURN_IF_ERROR(expr)                                     \
  do {                                                                 \
    const auto& tess_status_or_result_ = (expr);                       \
    if (!::tessera::internal::AsStatus(tess_status_or_result_).ok()) { \
      return ::tessera::internal::AsStatus(tess_status_or_result_);    \
    }                                                                  \
  } while (false)

#define TESS_ASSIGN_OR_RETURN_IMPL_(result, lhs, rexpr) \
  auto result = (rexpr);                                \
  if (!result.ok()) {                                   \
    return result.status();                             \
  }                                                     \
  lhs = std::move(result).value()

// `TESS_ASSIGN_OR_RETURN(Shape s, MakeShape(...));` declares or assigns `lhs`
// from a Result<T>, returning its status on error.
#define TESS_ASSIGN_OR_RETURN(lhs, rexpr) \
  TESS_ASSIGN_OR_RETURN_IMPL_(TESS_CONCAT_(tess_result_, __LINE__), lhs, rexpr)

#endif  // TESSERA_CORE_COMMON_STATUS_H_
