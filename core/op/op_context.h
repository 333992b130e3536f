// What an op's shape function and signature function see: the input descriptors by
// argument name, the outputs being inferred, the attributes (defaults filled in), and
// for signature listing the parallel size of the placement axis being enumerated.
// Built once per inference (a cache miss), never on the hot path.
#ifndef TESSERA_CORE_OP_OP_CONTEXT_H_
#define TESSERA_CORE_OP_OP_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"

namespace tessera {
namespace op {

struct TensorDesc {
  Shape shape;
  DType dtype = DType::kF32;
  friend bool operator==(const TensorDesc& a, const TensorDesc& b) {
    return a.shape == b.shape && a.dtype == b.dtype;
  }
};

class OpContext {
 public:
  // Validates the input count and attributes against `def`. `attrs` must outlive the
  // context.
  static Result<OpContext> Make(const OpDef& def, std::vector<TensorDesc> inputs,
                                const AttrMap& attrs);

  const OpDef& def() const { return *def_; }
  const std::string& op_name() const { return def_->name(); }

  // Flat slots: inputs in argument order, a repeated argument's copies in order.
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const TensorDesc& input(int slot) const { return inputs_[slot]; }
  const TensorDesc& output(int slot) const { return outputs_[slot]; }
  const std::vector<TensorDesc>& inputs() const { return inputs_; }
  const std::vector<TensorDesc>& outputs() const { return outputs_; }

  // By argument name; the name must be declared (a programmer error otherwise).
  int input_count(std::string_view arg) const;
  const TensorDesc& input(std::string_view arg, int index = 0) const;
  TensorDesc* mutable_output(std::string_view arg, int index = 0);
  const TensorDesc& output(std::string_view arg, int index = 0) const;
  int input_slot(std::string_view arg, int index = 0) const;
  int output_slot(std::string_view arg, int index = 0) const;
  // -1 when `arg` is not an input (output) argument.
  int input_arg_index(std::string_view arg) const;
  int output_arg_index(std::string_view arg) const;
  int input_arg_offset(int arg_index) const { return input_offsets_[arg_index]; }
  int input_arg_count(int arg_index) const { return input_counts_[arg_index]; }
  int output_arg_offset(int arg_index) const { return output_offsets_[arg_index]; }
  int output_arg_count(int arg_index) const { return def_->outputs()[arg_index].min_count; }

  // "a", or "in[1]" for a repeated argument.
  std::string InputName(int slot) const;
  std::string OutputName(int slot) const;

  // Attributes, from the call or the schema's default. The attribute must be declared
  // with that type (a programmer error otherwise).
  int64_t Int(std::string_view name) const;
  double Float(std::string_view name) const;
  bool Bool(std::string_view name) const;
  const std::vector<int64_t>& Ints(std::string_view name) const;
  DType DTypeAttr(std::string_view name) const;
  const AttrMap& attrs() const { return *attrs_; }

  // INVALID_ARGUMENT "<op>: <message>".
  Status Error(const std::string& message) const;

  // Signature listing: ranks along the placement axis being enumerated, and ranks in
  // the whole placement (ops whose splits only compose when even, like reshape,
  // need both). Both 1 during shape inference.
  int64_t parallel_num() const { return parallel_num_; }
  int64_t total_parallel_num() const { return total_parallel_num_; }
  void set_parallel(int64_t axis_parallel_num, int64_t total_parallel_num) {
    parallel_num_ = axis_parallel_num;
    total_parallel_num_ = total_parallel_num;
  }

 private:
  OpContext() = default;
  const AttrValue& AttrOrDefault(std::string_view name, AttrType type) const;

  const OpDef* def_ = nullptr;
  const AttrMap* attrs_ = nullptr;
  std::vector<TensorDesc> inputs_;
  std::vector<TensorDesc> outputs_;
  std::vector<int> input_offsets_;
  std::vector<int> input_counts_;
  std::vector<int> output_offsets_;
  int64_t parallel_num_ = 1;
  int64_t total_parallel_num_ = 1;
};

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OP_CONTEXT_H_
