#include "core/autograd/backward.h"

#include <queue>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/eager/interpreter.h"
#include "core/op/grad.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"

namespace tessera {
namespace autograd {
namespace {

using tensor::Tensor;

// `value` everywhere, with the dtype of `like`, broadcast on its placement.
Result<Tensor> FullLike(const Shape& shape, double value, const Tensor& like) {
  NdSbp all_b;
  for (int i = 0; i < like->placement().num_axes(); ++i) all_b.Append(Sbp::Broadcast());
  return tensor::Full(shape, like->dtype(), value, like->placement(), all_b);
}

Result<Tensor> Sum(const Tensor& a, const Tensor& b) {
  if (a == nullptr) return b;
  const Tensor in[2] = {a, b};
  TESS_ASSIGN_OR_RETURN(const op::OpDef* add, op::OpRegistry::Global().Find("add"));
  std::vector<Tensor> out;
  TESS_RETURN_IF_ERROR(eager::Apply(*add, in, 2, {}, &out));
  return out[0];
}

// Runs one node's gradient rule eagerly. Values are indices into `values_`.
class EagerGradBuilder final : public op::GradBuilder {
 public:
  EagerGradBuilder(const Node& node, std::vector<Tensor>* output_grads)
      : node_(node), output_grads_(*output_grads), input_grads_(node.inputs.size()) {}

  const op::OpDef& def() const override { return *node_.def; }
  const op::AttrMap& attrs() const override { return node_.attrs; }
  int num_inputs() const override { return static_cast<int>(node_.inputs.size()); }
  int num_outputs() const override { return static_cast<int>(node_.outputs.size()); }
  Value input(int slot) override { return Add(node_.inputs[slot]); }
  Value output(int slot) override { return Add(node_.outputs[slot]); }
  Value output_grad(int slot) override {
    Tensor& g = output_grads_[slot];
    if (g == nullptr) {
      const Tensor& out = node_.outputs[slot];
      Result<Tensor> zeros = FullLike(out->shape(), 0.0, out);
      if (!zeros.ok()) return Fail(zeros.status());
      g = *zeros;
    }
    return Add(g);
  }
  bool has_output_grad(int slot) const override { return output_grads_[slot] != nullptr; }
  bool needs_input_grad(int slot) const override { return !node_.next[slot].empty(); }
  Shape shape(Value v) const override { return v == kNoValue ? Shape() : values_[v]->shape(); }
  DType dtype(Value v) const override { return v == kNoValue ? DType::kF32 : values_[v]->dtype(); }

  Value Call(std::string_view op_name, const std::vector<Value>& inputs, const op::AttrMap& attrs,
             int output_index) override {
    if (!status_.ok()) return kNoValue;
    Result<const op::OpDef*> def = op::OpRegistry::Global().Find(op_name);
    if (!def.ok()) return Fail(def.status());
    call_inputs_.clear();
    for (Value v : inputs) {
      if (v == kNoValue) return kNoValue;
      call_inputs_.push_back(values_[v]);
    }
    std::vector<Tensor> out;
    Status s = eager::Apply(**def, call_inputs_.data(), call_inputs_.size(), attrs, &out);
    call_inputs_.clear();
    if (!s.ok()) return Fail(s);
    if (output_index < 0 || output_index >= static_cast<int>(out.size())) {
      return Fail(Internal(node_.def->name() + " gradient: " + std::string(op_name) +
                           " has no output #" + std::to_string(output_index)));
    }
    return Add(std::move(out[output_index]));
  }
  Value Full(const Shape& shape, double value, Value like) override {
    if (!status_.ok() || like == kNoValue) return kNoValue;
    Result<Tensor> t = FullLike(shape, value, values_[like]);
    if (!t.ok()) return Fail(t.status());
    return Add(*t);
  }
  void SetInputGrad(int slot, Value grad) override {
    if (!status_.ok() || grad == kNoValue) return;
    const Tensor& in = node_.inputs[slot];
    const Tensor& g = values_[grad];
    if (g->shape() != in->shape() || g->dtype() != in->dtype()) {
      Fail(Internal(node_.def->name() + " gradient of input #" + std::to_string(slot) +
                    ": the rule made " + g->shape().ToString() + " " + DTypeName(g->dtype()) +
                    " for an input of " + in->shape().ToString() + " " + DTypeName(in->dtype())));
      return;
    }
    input_grads_[slot] = g;
  }
  Value Fail(Status status) override {
    if (status_.ok()) status_ = std::move(status);
    return kNoValue;
  }
  const Status& status() const override { return status_; }

  std::vector<Tensor>& input_grads() { return input_grads_; }

 private:
  Value Add(Tensor t) {
    values_.push_back(std::move(t));
    return static_cast<Value>(values_.size() - 1);
  }

  const Node& node_;
  std::vector<Tensor>& output_grads_;
  std::vector<Tensor> input_grads_;
  std::vector<Tensor> values_;
  std::vector<Tensor> call_inputs_;
  Status status_;
};

struct NodeState {
  // Owns the node for the whole pass: once a node runs without retain_graph it drops its
  // edges, and a node no live handle records (a freed intermediate's) would go with them
  // while it still waits in ready_.
  std::shared_ptr<Node> keep;
  int pending_edges = 0;  // edges from nodes still to run
  std::vector<Tensor> output_grads;
};

struct LeafState {
  int pending_edges = 0;
  Tensor grad;
};

struct LaterFirst {
  bool operator()(const Node* a, const Node* b) const { return a->sequence < b->sequence; }
};

class Engine {
 public:
  explicit Engine(bool retain_graph) : retain_graph_(retain_graph) {}

  Status Run(const std::vector<Variable>& roots, const std::vector<Tensor>& root_grads) {
    if (!root_grads.empty() && root_grads.size() != roots.size()) {
      return InvalidArgument("backward: " + std::to_string(root_grads.size()) + " gradients for " +
                             std::to_string(roots.size()) + " roots");
    }
    std::vector<std::pair<Edge, Tensor>> seeds;
    for (size_t i = 0; i < roots.size(); ++i) {
      TESS_ASSIGN_OR_RETURN(Tensor grad, RootGrad(roots, root_grads, i));
      const Variable& r = roots[i];
      Edge e = r.meta->grad_fn != nullptr ? Edge{r.meta->grad_fn, r.meta->output_slot, nullptr}
                                          : Edge{nullptr, 0, r.meta};
      TESS_RETURN_IF_ERROR(Discover(e));
      seeds.emplace_back(std::move(e), std::move(grad));
    }
    for (auto& [edge, grad] : seeds) TESS_RETURN_IF_ERROR(Send(edge, std::move(grad)));
    while (!ready_.empty()) {
      Node* node = ready_.top();
      ready_.pop();
      TESS_RETURN_IF_ERROR(RunNode(node));
    }
    return Status::Ok();
  }

 private:
  Result<Tensor> RootGrad(const std::vector<Variable>& roots, const std::vector<Tensor>& grads,
                          size_t i) {
    const Variable& r = roots[i];
    const std::string name = "root #" + std::to_string(i);
    if (r.value == nullptr) return InvalidArgument("backward: " + name + " is NULL");
    if (!r.requires_grad()) {
      return InvalidArgument("backward: " + name +
                             " does not require a gradient (no input of the ops that made it "
                             "requires one, or it was made with grad mode off)");
    }
    Tensor g = grads.empty() ? nullptr : grads[i];
    if (g == nullptr) {
      if (r.value->shape().num_elements() != 1) {
        return InvalidArgument("backward: " + name + " has shape " + r.value->shape().ToString() +
                               "; a gradient defaults to 1 only for a one-element root: pass "
                               "its gradient");
      }
      return FullLike(r.value->shape(), 1.0, r.value);
    }
    if (g->shape() != r.value->shape() || g->dtype() != r.value->dtype()) {
      return InvalidArgument("backward: the gradient of " + name + " is " + g->shape().ToString() +
                             " " + DTypeName(g->dtype()) + " but the root is " +
                             r.value->shape().ToString() + " " + DTypeName(r.value->dtype()));
    }
    return g;
  }

  // Counts, for every node and leaf reachable from `root`, the edges that will
  // deliver a gradient to it (a seed counts as one).
  Status Discover(const Edge& root) {
    std::vector<const Edge*> stack = {&root};
    while (!stack.empty()) {
      const Edge* e = stack.back();
      stack.pop_back();
      if (e->leaf != nullptr) {
        leaves_[e->leaf.get()].pending_edges++;
        continue;
      }
      Node* n = e->node.get();
      auto [it, inserted] = nodes_.try_emplace(n);
      it->second.pending_edges++;
      if (!inserted) continue;
      it->second.keep = e->node;
      if (n->released) {
        return FailedPrecondition(
            "backward: op " + n->def->name() +
            " was already backpropagated through and its saved tensors freed; pass "
            "retain_graph to backward the same graph twice");
      }
      it->second.output_grads.resize(n->outputs.size());
      for (const Edge& next : n->next) {
        if (!next.empty()) stack.push_back(&next);
      }
    }
    return Status::Ok();
  }

  // Delivers one edge's gradient (null: the rule made none) and runs what is ready.
  Status Send(const Edge& e, Tensor grad) {
    if (e.leaf != nullptr) {
      LeafState& leaf = leaves_[e.leaf.get()];
      if (grad != nullptr) {
        TESS_ASSIGN_OR_RETURN(leaf.grad, Sum(leaf.grad, grad));
      }
      if (--leaf.pending_edges == 0) TESS_RETURN_IF_ERROR(FinishLeaf(*e.leaf, leaf));
      return Status::Ok();
    }
    NodeState& state = nodes_[e.node.get()];
    if (grad != nullptr) {
      Tensor& slot = state.output_grads[e.slot];
      TESS_ASSIGN_OR_RETURN(slot, Sum(slot, grad));
    }
    if (--state.pending_edges == 0) ready_.push(e.node.get());
    return Status::Ok();
  }

  Status FinishLeaf(AutogradMeta& meta, LeafState& leaf) {
    if (leaf.grad == nullptr) return Status::Ok();
    TESS_ASSIGN_OR_RETURN(meta.grad, Sum(meta.grad, leaf.grad));
    leaf.grad = nullptr;
    for (const GradReadyHook& hook : meta.hooks) hook(meta.grad);
    return Status::Ok();
  }

  Status RunNode(Node* node) {
    NodeState& state = nodes_[node];
    std::vector<Tensor> input_grads(node->inputs.size());
    bool any_grad = false;
    for (const Tensor& g : state.output_grads) any_grad |= g != nullptr;
    if (any_grad) {
      if (node->def->grad_fn() == nullptr) {
        for (size_t i = 0; i < node->next.size(); ++i) {
          if (!node->next[i].empty()) {
            return Unimplemented("backward: op " + node->def->name() +
                                 " declares no gradient, but its input #" + std::to_string(i) +
                                 " requires one");
          }
        }
      } else {
        EagerGradBuilder builder(*node, &state.output_grads);
        Status s = node->def->grad_fn()(&builder);
        if (!s.ok())
          return Status(s.code(), "backward of " + node->def->name() + ": " + s.message());
        input_grads = std::move(builder.input_grads());
      }
    }
    state.output_grads.clear();
    std::vector<Edge> next = node->next;
    if (!retain_graph_) {
      node->inputs.clear();
      node->outputs.clear();
      node->next.clear();
      node->released = true;
    }
    for (size_t i = 0; i < next.size(); ++i) {
      if (!next[i].empty()) TESS_RETURN_IF_ERROR(Send(next[i], std::move(input_grads[i])));
    }
    return Status::Ok();
  }

  const bool retain_graph_;
  std::unordered_map<Node*, NodeState> nodes_;
  std::unordered_map<AutogradMeta*, LeafState> leaves_;
  std::priority_queue<Node*, std::vector<Node*>, LaterFirst> ready_;
};

}  // namespace

Status Backward(const std::vector<Variable>& roots, const std::vector<Tensor>& root_grads,
                bool retain_graph) {
  if (roots.empty()) return InvalidArgument("backward: no roots");
  NoGradGuard no_grad;
  return Engine(retain_graph).Run(roots, root_grads);
}

}  // namespace autograd
}  // namespace tessera
