#include "core/serve/request.h"

#include <string>

namespace tessera::serve {

Request::Request(const Server* server, int32_t plan_id, const ServedPlan* plan)
    : server_(server), plan_id_(plan_id), plan_(plan) {
  inputs_.resize(plan->inputs().size());
  input_rows_.assign(plan->inputs().size(), -1);
  outputs_.resize(plan->outputs().size());
}

Status Request::SetInput(size_t index, const void* data, size_t bytes) {
  if (index >= inputs_.size()) {
    return OutOfRange("tess_serve_request_set_input: index " + std::to_string(index) +
                      " is out of range; plan " + std::to_string(plan_id_) + " has " +
                      std::to_string(inputs_.size()) + " input(s)");
  }
  const ServedTensor& t = plan_->inputs()[index];
  const int64_t max_rows = plan_->options().max_batch_rows;
  if (bytes == 0 || bytes % t.row_bytes != 0) {
    return InvalidArgument("tess_serve_request_set_input: input " + std::to_string(index) +
                           " got " + std::to_string(bytes) + " bytes, not a whole number of " +
                           std::to_string(t.row_bytes) + "-byte rows (" + std::to_string(t.width) +
                           " " + DTypeName(t.dtype) + " each), at least one");
  }
  const int64_t rows = static_cast<int64_t>(bytes / t.row_bytes);
  if (rows > max_rows) {
    return InvalidArgument("tess_serve_request_set_input: input " + std::to_string(index) +
                           " has " + std::to_string(rows) + " rows; plan " +
                           std::to_string(plan_id_) + " takes at most " + std::to_string(max_rows) +
                           " rows a request (max_batch_rows)");
  }
  if (data == nullptr) {
    return InvalidArgument("tess_serve_request_set_input: rows_data is NULL with rows_bytes " +
                           std::to_string(bytes));
  }
  const char* p = static_cast<const char*>(data);
  inputs_[index].assign(p, p + bytes);
  input_rows_[index] = rows;
  return Status::Ok();
}

Result<const std::vector<char>*> Request::Output(size_t index) const {
  if (index >= outputs_.size()) {
    return OutOfRange("tess_serve_request_output: index " + std::to_string(index) +
                      " is out of range; plan " + std::to_string(plan_id_) + " has " +
                      std::to_string(outputs_.size()) + " output(s)");
  }
  if (!answered_) {
    return FailedPrecondition(
        "tess_serve_request_output: the request has no answer yet (run it "
        "with tess_server_run first)");
  }
  return &outputs_[index];
}

Result<Request::Info> Request::info() const {
  if (!answered_) {
    return FailedPrecondition(
        "tess_serve_request_get_info: the request has no answer yet (run it with "
        "tess_server_run first)");
  }
  return info_;
}

}  // namespace tessera::serve
