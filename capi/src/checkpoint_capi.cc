// tess_checkpoint_*: sharded checkpoints (core/checkpoint) through the C API.
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "core/checkpoint/checkpoint.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::capi::ReportIn;
using tessera::checkpoint::Index;
using tessera::checkpoint::TensorRecord;

struct tess_checkpoint_writer {
  std::vector<tessera::checkpoint::NamedTensor> tensors;
  std::unordered_set<std::string> names;  // of `tensors`, for the repeated-name check
};

struct tess_checkpoint_index {
  Index value;
};

namespace {

// Tensor i of `index`, or INVALID_ARGUMENT naming the count.
Result<const TensorRecord*> TensorAt(const tess_checkpoint_index* index, size_t i) {
  if (i >= index->value.tensors.size()) {
    return InvalidArgument("tensor index " + std::to_string(i) + " is past the checkpoint's " +
                           std::to_string(index->value.tensors.size()) + " tensors");
  }
  return &index->value.tensors[i];
}

// The shape of the three record getters: *out = get(record i).
template <typename Out, typename Get>
tess_status GetRecord(const char* function, Out* out, const tess_checkpoint_index* index, size_t i,
                      Get get) {
  if (out == nullptr) return tessera::capi::NullArgument(function, "out");
  if (index == nullptr) return tessera::capi::NullArgument(function, "index");
  Result<const TensorRecord*> record = TensorAt(index, i);
  if (!record.ok()) return ReportIn(function, record.status());
  *out = get(**record);
  return TESS_OK;
}

const char* RecordText(const tess_checkpoint_index* index, size_t i,
                       const std::string TensorRecord::*field) {
  if (index == nullptr || i >= index->value.tensors.size()) return "";
  return (index->value.tensors[i].*field).c_str();
}

}  // namespace

extern "C" {

tess_status tess_checkpoint_writer_create(tess_checkpoint_writer** out) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  *out = new tess_checkpoint_writer();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_checkpoint_writer_destroy(tess_checkpoint_writer* writer) { delete writer; }

tess_status tess_checkpoint_writer_add(tess_checkpoint_writer* writer, const char* name,
                                       const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(writer);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  Status valid = tessera::checkpoint::CheckTensorName(name);
  if (valid.ok() && writer->names.count(name) > 0) {
    valid = InvalidArgument(std::string("tensor name \"") + name + "\" was added already");
  }
  if (valid.ok() && tensor->value->is_placeholder()) {
    valid = InvalidArgument(std::string("tensor \"") + name +
                            "\" is a placeholder of a capture; it has no value to save");
  }
  if (!valid.ok()) return ReportIn(__func__, valid);
  writer->names.insert(name);
  writer->tensors.emplace_back(name, tensor->value);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_checkpoint_writer_save(const tess_checkpoint_writer* writer, const char* dir) {
  TESS_CAPI_REQUIRE(writer);
  TESS_CAPI_REQUIRE(dir);
  TESS_CAPI_BEGIN
  return ReportIn(__func__, tessera::checkpoint::Save(dir, writer->tensors));
  TESS_CAPI_END
}

tess_status tess_checkpoint_load(tess_tensor** out, const char* dir, const char* name,
                                 const tess_placement* placement, const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(dir);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  return tessera::capi::EmitTensor(
      __func__, out, tessera::checkpoint::Load(dir, name, placement->value, nd_sbp->value));
  TESS_CAPI_END
}

tess_status tess_checkpoint_load_checked(tess_tensor** out, const char* dir, const char* name,
                                         const tess_placement* placement, const tess_nd_sbp* nd_sbp,
                                         const int64_t* shape, size_t ndim, tess_dtype dtype) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(dir);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  if (ndim > 0) TESS_CAPI_REQUIRE(shape);
  TESS_CAPI_BEGIN
  // Argument errors are the same on every rank (SPMD), so no agreement is needed.
  Result<Shape> expect_shape = tessera::capi::ShapeArg("shape", shape, ndim);
  if (!expect_shape.ok()) return ReportIn(__func__, expect_shape.status());
  Result<tessera::DType> expect_dtype = tessera::capi::DTypeArg(dtype);
  if (!expect_dtype.ok()) return ReportIn(__func__, expect_dtype.status());
  return tessera::capi::EmitTensor(
      __func__, out,
      tessera::checkpoint::Load(dir, name, placement->value, nd_sbp->value, *expect_shape,
                                *expect_dtype));
  TESS_CAPI_END
}

tess_status tess_checkpoint_index_open(tess_checkpoint_index** out, const char* dir) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(dir);
  TESS_CAPI_BEGIN
  Result<Index> index = tessera::checkpoint::List(dir);
  if (!index.ok()) return ReportIn(__func__, index.status());
  *out = new tess_checkpoint_index{std::move(index).value()};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_checkpoint_index_destroy(tess_checkpoint_index* index) { delete index; }

tess_status tess_checkpoint_index_num_tensors(size_t* out, const tess_checkpoint_index* index) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(index);
  *out = index->value.tensors.size();
  return TESS_OK;
}

const char* tess_checkpoint_index_name(const tess_checkpoint_index* index, size_t i) {
  return RecordText(index, i, &TensorRecord::name);
}

const char* tess_checkpoint_index_placement(const tess_checkpoint_index* index, size_t i) {
  return RecordText(index, i, &TensorRecord::placement);
}

const char* tess_checkpoint_index_nd_sbp(const tess_checkpoint_index* index, size_t i) {
  return RecordText(index, i, &TensorRecord::nd_sbp);
}

tess_status tess_checkpoint_index_shape(const int64_t** out_dims, size_t* out_ndim,
                                        const tess_checkpoint_index* index, size_t i) {
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(index);
  Result<const TensorRecord*> record = TensorAt(index, i);
  if (!record.ok()) return ReportIn(__func__, record.status());
  return tessera::capi::LendShape((*record)->shape, out_dims, out_ndim);
}

tess_status tess_checkpoint_index_dtype(tess_dtype* out, const tess_checkpoint_index* index,
                                        size_t i) {
  return GetRecord(__func__, out, index, i, [](const TensorRecord& record) {
    return static_cast<tess_dtype>(record.dtype);
  });
}

tess_status tess_checkpoint_index_num_shards(size_t* out, const tess_checkpoint_index* index,
                                             size_t i) {
  return GetRecord(__func__, out, index, i,
                   [](const TensorRecord& record) { return record.shards.size(); });
}

}  // extern "C"
