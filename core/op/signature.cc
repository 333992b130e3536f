#include "core/op/signature.h"

#include <algorithm>

namespace tessera {
namespace op {
namespace {

template <typename T>
std::string SigToString(const OpContext& ctx, const std::vector<T>& ins,
                        const std::vector<T>& outs) {
  std::string s;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (i) s += ", ";
    s += ctx.InputName(static_cast<int>(i)) + ":" + ins[i].ToString();
  }
  s += " -> ";
  for (size_t i = 0; i < outs.size(); ++i) {
    if (i) s += ", ";
    s += ctx.OutputName(static_cast<int>(i)) + ":" + outs[i].ToString();
  }
  return s;
}

}  // namespace

std::string SbpSignature::ToString(const OpContext& ctx) const {
  return SigToString(ctx, inputs, outputs);
}

std::string NdSbpSignature::ToString(const OpContext& ctx) const {
  return SigToString(ctx, inputs, outputs);
}

SignatureList::Builder::Builder(SignatureList* list) : list_(list) {
  const OpContext& ctx = list->ctx();
  sig_.inputs.resize(static_cast<size_t>(ctx.num_inputs()));
  sig_.outputs.resize(static_cast<size_t>(ctx.num_outputs()));
  in_set_.assign(sig_.inputs.size(), false);
  out_set_.assign(sig_.outputs.size(), false);
}

SignatureList::Builder& SignatureList::Builder::Set(const ArgSel& arg, Sbp sbp) {
  const OpContext& ctx = list_->ctx();
  auto set_in = [&](int slot) {
    sig_.inputs[slot] = sbp;
    in_set_[slot] = true;
  };
  auto set_out = [&](int slot) {
    sig_.outputs[slot] = sbp;
    out_set_[slot] = true;
  };
  switch (arg.kind) {
    case ArgSel::Kind::kAllInputs:
      for (int s = 0; s < ctx.num_inputs(); ++s) set_in(s);
      return *this;
    case ArgSel::Kind::kAllOutputs:
      for (int s = 0; s < ctx.num_outputs(); ++s) set_out(s);
      return *this;
    case ArgSel::Kind::kNamed: break;
  }
  if (int a = ctx.input_arg_index(arg.name); a >= 0) {
    int count = ctx.input_arg_count(a);
    if (arg.index >= count) {
      error_ = "input " + std::string(arg.name) + "[" + std::to_string(arg.index) +
               "] does not exist (" + std::to_string(count) + " given)";
      return *this;
    }
    for (int i = 0; i < count; ++i) {
      if (arg.index < 0 || arg.index == i) set_in(ctx.input_arg_offset(a) + i);
    }
    return *this;
  }
  if (int a = ctx.output_arg_index(arg.name); a >= 0) {
    int count = ctx.output_arg_count(a);
    if (arg.index >= count) {
      error_ =
          "output " + std::string(arg.name) + "[" + std::to_string(arg.index) + "] does not exist";
      return *this;
    }
    for (int i = 0; i < count; ++i) {
      if (arg.index < 0 || arg.index == i) set_out(ctx.output_arg_offset(a) + i);
    }
    return *this;
  }
  error_ = "no argument named \"" + std::string(arg.name) + "\"";
  return *this;
}

void SignatureList::Builder::Build() {
  if (!list_->status_.ok()) return;
  const OpContext& ctx = list_->ctx();
  auto fail = [&](const std::string& what) {
    list_->status_ = Internal(ctx.op_name() + ": signature builder: " + what);
  };
  if (!error_.empty()) return fail(error_);
  for (size_t s = 0; s < sig_.inputs.size(); ++s) {
    const int slot = static_cast<int>(s);
    if (!in_set_[s]) return fail("input \"" + ctx.InputName(slot) + "\" left unset");
    if (sig_.inputs[s].is_split() && sig_.inputs[s].axis >= ctx.input(slot).shape.ndim()) {
      return fail("input \"" + ctx.InputName(slot) + "\" split on axis " +
                  std::to_string(sig_.inputs[s].axis) + " of shape " +
                  ctx.input(slot).shape.ToString());
    }
  }
  for (size_t s = 0; s < sig_.outputs.size(); ++s) {
    const int slot = static_cast<int>(s);
    if (!out_set_[s]) return fail("output \"" + ctx.OutputName(slot) + "\" left unset");
    if (sig_.outputs[s].is_split() && sig_.outputs[s].axis >= ctx.output(slot).shape.ndim()) {
      return fail("output \"" + ctx.OutputName(slot) + "\" split on axis " +
                  std::to_string(sig_.outputs[s].axis) + " of shape " +
                  ctx.output(slot).shape.ToString());
    }
  }
  list_->Add(std::move(sig_));
}

namespace {

// bool has no sum, max or min (dtype.h): a signature that puts a bool slot under a
// partial is dropped here, once for every op, rather than in each op's list.
bool PartialOnBool(const OpContext& ctx, const SbpSignature& sig) {
  for (size_t s = 0; s < sig.inputs.size(); ++s) {
    if (sig.inputs[s].is_partial() && ctx.input(static_cast<int>(s)).dtype == DType::kBool) {
      return true;
    }
  }
  for (size_t s = 0; s < sig.outputs.size(); ++s) {
    if (sig.outputs[s].is_partial() && ctx.output(static_cast<int>(s)).dtype == DType::kBool) {
      return true;
    }
  }
  return false;
}

}  // namespace

void SignatureList::Add(SbpSignature sig) {
  if (PartialOnBool(*ctx_, sig)) return;
  if (std::find(signatures_.begin(), signatures_.end(), sig) != signatures_.end()) return;
  signatures_.push_back(std::move(sig));
}

void SignatureList::AddAllBroadcast() {
  SbpSignature sig;
  sig.inputs.assign(static_cast<size_t>(ctx_->num_inputs()), Sbp::Broadcast());
  sig.outputs.assign(static_cast<size_t>(ctx_->num_outputs()), Sbp::Broadcast());
  Add(std::move(sig));
}

Result<std::vector<SbpSignature>> ListSignatures(OpContext* ctx, int64_t axis_parallel_num,
                                                 int64_t total_parallel_num) {
  ctx->set_parallel(axis_parallel_num, total_parallel_num);
  SignatureList list(ctx);
  ctx->def().signature_fn()(*ctx, &list);
  ctx->set_parallel(1, 1);
  if (!list.status().ok()) return list.status();
  list.AddAllBroadcast();
  return list.signatures();
}

}  // namespace op
}  // namespace tessera
