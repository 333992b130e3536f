// SBP signatures: one Sbp (1-d) or NdSbp (N-d) per input slot and output slot, and
// the builder an op's signature function uses to declare its valid 1-d signatures:
//
//   list->NewBuilder().Split("a", 0).Broadcast("b").Split(AllOutputs(), 0).Build();
//
// An argument selector names an argument (all its copies when it repeats), one copy
// (Arg("in", 1)), or every input / output at once (AllInputs(), AllOutputs()).
#ifndef TESSERA_CORE_OP_SIGNATURE_H_
#define TESSERA_CORE_OP_SIGNATURE_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/op/op_context.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace op {

struct SbpSignature {
  std::vector<Sbp> inputs;
  std::vector<Sbp> outputs;
  // "a:S(0), b:B -> out:S(0)".
  std::string ToString(const OpContext& ctx) const;
  friend bool operator==(const SbpSignature& a, const SbpSignature& b) {
    return a.inputs == b.inputs && a.outputs == b.outputs;
  }
};

struct NdSbpSignature {
  std::vector<NdSbp> inputs;
  std::vector<NdSbp> outputs;
  // "a:(S(0), B), b:(B, S(1)) -> out:(S(0), S(1))".
  std::string ToString(const OpContext& ctx) const;
  friend bool operator==(const NdSbpSignature& a, const NdSbpSignature& b) {
    return a.inputs == b.inputs && a.outputs == b.outputs;
  }
};

struct ArgSel {
  enum class Kind { kNamed, kAllInputs, kAllOutputs };
  Kind kind = Kind::kNamed;
  std::string_view name;
  int index = -1;                                   // -1: every copy of a repeated argument
  ArgSel(const char* arg_name) : name(arg_name) {}  // NOLINT: implicit by design
  ArgSel(Kind k, std::string_view n, int i) : kind(k), name(n), index(i) {}
};
inline ArgSel Arg(std::string_view name, int index) {
  return ArgSel(ArgSel::Kind::kNamed, name, index);
}
inline ArgSel AllInputs() { return ArgSel(ArgSel::Kind::kAllInputs, {}, -1); }
inline ArgSel AllOutputs() { return ArgSel(ArgSel::Kind::kAllOutputs, {}, -1); }

class SignatureList {
 public:
  explicit SignatureList(const OpContext* ctx) : ctx_(ctx) {}

  class Builder {
   public:
    Builder& Split(const ArgSel& arg, int axis) { return Set(arg, Sbp::Split(axis)); }
    Builder& Broadcast(const ArgSel& arg) { return Set(arg, Sbp::Broadcast()); }
    Builder& PartialSum(const ArgSel& arg) { return Set(arg, Sbp::PartialSum()); }
    Builder& PartialMax(const ArgSel& arg) { return Set(arg, Sbp::PartialMax()); }
    Builder& PartialMin(const ArgSel& arg) { return Set(arg, Sbp::PartialMin()); }
    Builder& Set(const ArgSel& arg, Sbp sbp);
    // Appends the signature unless an identical one is already listed. A slot left
    // unset, an unknown argument or a split axis outside a slot's shape is a bug in
    // the op definition: the list records it as an INTERNAL error.
    void Build();

   private:
    friend class SignatureList;
    explicit Builder(SignatureList* list);
    SignatureList* list_;
    SbpSignature sig_;
    std::vector<bool> in_set_;
    std::vector<bool> out_set_;
    std::string error_;
  };

  Builder NewBuilder() { return Builder(this); }
  // Appends the all-broadcast signature (the framework does this after the op's list).
  void AddAllBroadcast();

  const std::vector<SbpSignature>& signatures() const { return signatures_; }
  const Status& status() const { return status_; }
  const OpContext& ctx() const { return *ctx_; }

 private:
  void Add(SbpSignature sig);
  const OpContext* ctx_;
  std::vector<SbpSignature> signatures_;
  Status status_;
};

// Runs the op's signature function for one placement axis of `axis_parallel_num`
// ranks (in a placement of `total_parallel_num`) and appends the all-B signature.
// Mutates ctx's parallel fields only for the duration of the call.
Result<std::vector<SbpSignature>> ListSignatures(OpContext* ctx, int64_t axis_parallel_num,
                                                 int64_t total_parallel_num);

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_SIGNATURE_H_
