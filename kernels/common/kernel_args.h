// Helpers every kernel (CPU or CUDA) uses to read its call: the entry check, argument
// names for messages, attributes with the OpDef default as fallback, and axes.
// All are allocation-free on success; errors are INVALID_ARGUMENT "<op>: <message>",
// the same form as shape-function errors.
#ifndef TESSERA_KERNELS_COMMON_KERNEL_ARGS_H_
#define TESSERA_KERNELS_COMMON_KERNEL_ARGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"

namespace tessera {
namespace kernels {

// INVALID_ARGUMENT "<op>: <message>" ("kernel: <message>" without a def).
Status KernelError(const KernelContext& ctx, const std::string& message);

// The op's name, or "kernel" without a def.
std::string_view OpName(const KernelContext& ctx);

// "x", or "in[1]" for a copy of a repeated argument. Needs a call that passed
// CheckKernelCall.
std::string InputName(const KernelContext& ctx, int slot);
std::string OutputName(const KernelContext& ctx, int slot);

// What every kernel checks first: a def; input and output counts the def accepts;
// non-null arrays; every tensor of a supported dtype and with storage when it has
// elements.
Status CheckKernelCall(const KernelContext& ctx);

// Attributes: the call's value, else the OpDef's default. Errors when the def does not
// declare `name` with that type or a required attribute is missing.
Result<int64_t> IntAttr(const KernelContext& ctx, std::string_view name);
Result<double> FloatAttr(const KernelContext& ctx, std::string_view name);
Result<bool> BoolAttr(const KernelContext& ctx, std::string_view name);
// Points into the attribute map or the def; lives as long as they do.
Result<const std::vector<int64_t>*> IntsAttr(const KernelContext& ctx, std::string_view name);
Result<DType> DTypeAttr(const KernelContext& ctx, std::string_view name);

// Maps `axis` in [-ndim, ndim) to [0, ndim); the error names the attribute, the
// input and its shape.
Result<int> NormalizeAxis(const KernelContext& ctx, std::string_view attr, int64_t axis,
                          int input_slot);

// "[1,0,2]": the multi-index of element `flat` of a row-major `shape`, for messages.
std::string IndexString(const Shape& shape, int64_t flat);

// Errors unless input `slot` has dtype `want`, naming the argument `other` it must
// match ("" for none).
Status ExpectDType(const KernelContext& ctx, int input_slot, DType want, std::string_view other);
// Errors unless output `slot` has shape `want` and dtype `dtype`: the caller's shape
// function disagrees with the kernel's reading of its inputs.
Status ExpectOutput(const KernelContext& ctx, int output_slot, const Shape& want, DType dtype);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_KERNEL_ARGS_H_
