#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {
namespace {

// Fixed input slots and the repeated argument's bounds (max -1: unbounded).
struct Arity {
  int fixed = 0;
  int repeated_arg = -1;
  int repeated_min = 0;
  int repeated_max = 0;
};

Arity ArityOf(const op::OpDef& def) {
  Arity a;
  for (size_t i = 0; i < def.inputs().size(); ++i) {
    const op::ArgDef& arg = def.inputs()[i];
    if (arg.repeated()) {
      a.repeated_arg = static_cast<int>(i);
      a.repeated_min = arg.min_count;
      a.repeated_max = arg.max_count;
    } else {
      a.fixed += arg.min_count;
    }
  }
  return a;
}

// "x" for a single slot, "in[i]" for copy i of a repeated (or multi-slot) argument.
std::string ArgSlotName(const op::ArgDef& arg, int count, int index) {
  if (!arg.repeated() && count == 1) return arg.name;
  return arg.name + "[" + std::to_string(index) + "]";
}

std::string TensorName(const KernelContext& ctx, bool input, int slot) {
  return std::string(input ? "input" : "output") + " \"" +
         (input ? InputName(ctx, slot) : OutputName(ctx, slot)) + "\"";
}

Status CheckTensor(const KernelContext& ctx, const LocalTensor& t, bool input, int slot) {
  const int dtype = static_cast<int>(t.dtype);
  if (!IsValidDType(dtype)) {
    return KernelError(ctx, TensorName(ctx, input, slot) + " has dtype value " +
                                std::to_string(dtype) + ", which is not a dtype");
  }
  if (!IsSupported(t.dtype)) {
    return KernelError(ctx, TensorName(ctx, input, slot) + " has dtype " + DTypeName(t.dtype) +
                                ", which no kernel supports yet");
  }
  if (t.data == nullptr && t.shape.num_elements() > 0) {
    return KernelError(ctx, TensorName(ctx, input, slot) + " of shape " + t.shape.ToString() +
                                " has no storage (data is null)");
  }
  return Status::Ok();
}

Result<const op::AttrValue*> FindAttr(const KernelContext& ctx, std::string_view name,
                                      op::AttrType type) {
  if (ctx.def == nullptr) {
    return KernelError(ctx, "reads attribute \"" + std::string(name) + "\" without an op def");
  }
  const op::AttrDef* def = ctx.def->FindAttr(name);
  if (def == nullptr || def->type != type) {
    return KernelError(ctx, "reads attribute \"" + std::string(name) + "\" as " +
                                op::AttrTypeName(type) + " but the op declares " +
                                (def == nullptr ? std::string("no such attribute")
                                                : std::string(op::AttrTypeName(def->type))));
  }
  const op::AttrValue* value = ctx.attrs == nullptr ? nullptr : ctx.attrs->Find(name);
  if (value != nullptr) {
    if (value->type() != type) {
      return KernelError(ctx, "attribute \"" + std::string(name) + "\" is " +
                                  op::AttrTypeName(value->type()) + " " + value->ToString() +
                                  "; expected " + op::AttrTypeName(type));
    }
    return value;
  }
  if (!def->default_value.has_value()) {
    return KernelError(ctx, "required attribute \"" + std::string(name) + "\" is missing");
  }
  return &*def->default_value;
}

}  // namespace

std::string_view OpName(const KernelContext& ctx) {
  return ctx.def == nullptr ? std::string_view("kernel") : std::string_view(ctx.def->name());
}

Status KernelError(const KernelContext& ctx, const std::string& message) {
  return InvalidArgument(std::string(OpName(ctx)) + ": " + message);
}

std::string InputName(const KernelContext& ctx, int slot) {
  if (ctx.def == nullptr) return "input#" + std::to_string(slot);
  const Arity arity = ArityOf(*ctx.def);
  int offset = 0;
  for (size_t a = 0; a < ctx.def->inputs().size(); ++a) {
    const op::ArgDef& arg = ctx.def->inputs()[a];
    const int count =
        static_cast<int>(a) == arity.repeated_arg ? ctx.num_inputs - arity.fixed : arg.min_count;
    if (slot >= offset && slot < offset + count) return ArgSlotName(arg, count, slot - offset);
    offset += count;
  }
  return "input#" + std::to_string(slot);
}

std::string OutputName(const KernelContext& ctx, int slot) {
  if (ctx.def == nullptr) return "output#" + std::to_string(slot);
  int offset = 0;
  for (const op::ArgDef& arg : ctx.def->outputs()) {
    if (slot >= offset && slot < offset + arg.min_count) {
      return ArgSlotName(arg, arg.min_count, slot - offset);
    }
    offset += arg.min_count;
  }
  return "output#" + std::to_string(slot);
}

Status CheckKernelCall(const KernelContext& ctx) {
  if (ctx.def == nullptr) return InvalidArgument("kernel: KernelContext.def is null");
  const Arity arity = ArityOf(*ctx.def);
  const int min_inputs = arity.fixed + (arity.repeated_arg >= 0 ? arity.repeated_min : 0);
  const int max_inputs = arity.repeated_arg < 0   ? arity.fixed
                         : arity.repeated_max < 0 ? -1
                                                  : arity.fixed + arity.repeated_max;
  if (ctx.num_inputs < min_inputs || (max_inputs >= 0 && ctx.num_inputs > max_inputs)) {
    std::string want = std::to_string(min_inputs);
    if (max_inputs < 0) {
      want = "at least " + want;
    } else if (max_inputs != min_inputs) {
      want += " to " + std::to_string(max_inputs);
    }
    return KernelError(
        ctx, "takes " + want + " inputs but the call gives " + std::to_string(ctx.num_inputs));
  }
  if (ctx.num_outputs != ctx.def->num_outputs()) {
    return KernelError(ctx, "has " + std::to_string(ctx.def->num_outputs()) +
                                " outputs but the call gives " + std::to_string(ctx.num_outputs));
  }
  if (ctx.num_inputs > 0 && ctx.inputs == nullptr) {
    return KernelError(
        ctx, "KernelContext.inputs is null with num_inputs " + std::to_string(ctx.num_inputs));
  }
  if (ctx.num_outputs > 0 && ctx.outputs == nullptr) {
    return KernelError(
        ctx, "KernelContext.outputs is null with num_outputs " + std::to_string(ctx.num_outputs));
  }
  for (int i = 0; i < ctx.num_inputs; ++i) {
    TESS_RETURN_IF_ERROR(CheckTensor(ctx, ctx.inputs[i], /*input=*/true, i));
  }
  for (int i = 0; i < ctx.num_outputs; ++i) {
    TESS_RETURN_IF_ERROR(CheckTensor(ctx, ctx.outputs[i], /*input=*/false, i));
  }
  return Status::Ok();
}

Result<int64_t> IntAttr(const KernelContext& ctx, std::string_view name) {
  TESS_ASSIGN_OR_RETURN(const op::AttrValue* v, FindAttr(ctx, name, op::AttrType::kInt));
  return v->int_value();
}

Result<double> FloatAttr(const KernelContext& ctx, std::string_view name) {
  TESS_ASSIGN_OR_RETURN(const op::AttrValue* v, FindAttr(ctx, name, op::AttrType::kFloat));
  return v->float_value();
}

Result<bool> BoolAttr(const KernelContext& ctx, std::string_view name) {
  TESS_ASSIGN_OR_RETURN(const op::AttrValue* v, FindAttr(ctx, name, op::AttrType::kBool));
  return v->bool_value();
}

Result<const std::vector<int64_t>*> IntsAttr(const KernelContext& ctx, std::string_view name) {
  TESS_ASSIGN_OR_RETURN(const op::AttrValue* v, FindAttr(ctx, name, op::AttrType::kInts));
  return &v->ints_value();
}

Result<DType> DTypeAttr(const KernelContext& ctx, std::string_view name) {
  TESS_ASSIGN_OR_RETURN(const op::AttrValue* v, FindAttr(ctx, name, op::AttrType::kDType));
  return v->dtype_value();
}

Result<int> NormalizeAxis(const KernelContext& ctx, std::string_view attr, int64_t axis,
                          int input_slot) {
  const Shape& shape = ctx.inputs[input_slot].shape;
  const int ndim = shape.ndim();
  if (axis < -ndim || axis >= ndim) {
    return KernelError(ctx, "attribute \"" + std::string(attr) + "\" is " + std::to_string(axis) +
                                " but input \"" + InputName(ctx, input_slot) + "\" has shape " +
                                shape.ToString() + " (" + std::to_string(ndim) +
                                " axes; valid axes are " + std::to_string(-ndim) + ".." +
                                std::to_string(ndim - 1) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::string IndexString(const Shape& shape, int64_t flat) {
  int64_t index[Shape::kMaxDims] = {};
  for (int i = shape.ndim() - 1; i >= 0; --i) {
    const int64_t d = shape.dim(i);
    index[i] = d == 0 ? 0 : flat % d;
    flat = d == 0 ? 0 : flat / d;
  }
  std::string s = "[";
  for (int i = 0; i < shape.ndim(); ++i) {
    if (i) s += ",";
    s += std::to_string(index[i]);
  }
  return s + "]";
}

Status ExpectDType(const KernelContext& ctx, int input_slot, DType want, std::string_view other) {
  const DType got = ctx.inputs[input_slot].dtype;
  if (got == want) return Status::Ok();
  std::string message =
      "input \"" + InputName(ctx, input_slot) + "\" has dtype " + DTypeName(got) + " but ";
  message += other.empty() ? std::string("the kernel needs ") + DTypeName(want)
                           : "\"" + std::string(other) + "\" has " + DTypeName(want);
  return KernelError(ctx, message);
}

Status ExpectOutput(const KernelContext& ctx, int output_slot, const Shape& want, DType dtype) {
  const LocalTensor& out = ctx.outputs[output_slot];
  if (out.shape == want && out.dtype == dtype) return Status::Ok();
  return KernelError(ctx, "output \"" + OutputName(ctx, output_slot) + "\" is " +
                              out.shape.ToString() + " " + DTypeName(out.dtype) +
                              " but the inputs give " + want.ToString() + " " + DTypeName(dtype));
}

}  // namespace kernels
}  // namespace tessera
