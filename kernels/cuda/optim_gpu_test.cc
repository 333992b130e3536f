// sgd_update, adam_update and adam_update_at_step on CUDA against the CPU kernels (themselves
// checked against PyTorch's rules in kernels/cpu/optim_test.cc), on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using OptimGpuTest = GpuTest;

TEST_F(OptimGpuTest, SgdAndAdamMatchTheCpuKernels) {
  std::mt19937 rng(43);
  const AttrMap sgd[] = {
      {{"lr", AttrValue::Float(0.1)}},
      {{"lr", AttrValue::Float(0.05)},
       {"momentum", AttrValue::Float(0.9)},
       {"dampening", AttrValue::Float(0.2)},
       {"weight_decay", AttrValue::Float(0.01)}},
      {{"momentum", AttrValue::Float(0.8)},
       {"nesterov", AttrValue::Bool(true)},
       {"first_step", AttrValue::Bool(true)}},
  };
  const AttrMap adam[] = {
      {{"step", AttrValue::Int(1)}},
      {{"step", AttrValue::Int(7)}, {"weight_decay", AttrValue::Float(0.1)}},
      {{"step", AttrValue::Int(3)},
       {"weight_decay", AttrValue::Float(0.1)},
       {"decoupled", AttrValue::Bool(true)},
       {"beta1", AttrValue::Float(0.5)}},
  };
  for (DType dt : FloatTypes()) {
    for (const Shape& s : {Shape{7}, Shape{0}, Shape{300, 1001}}) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + s.ToString());
      for (const AttrMap& a : sgd) {
        ExpectCudaMatchesCpu("sgd_update",
                             {Random(s, dt, &rng), Random(s, dt, &rng), Random(s, dt, &rng)}, a,
                             stream_);
      }
      for (const AttrMap& a : adam) {
        const std::vector<HostTensor> in = {Random(s, dt, &rng), Random(s, dt, &rng),
                                            Random(s, dt, &rng), Random(s, dt, &rng, 0, 2)};
        ExpectCudaMatchesCpu("adam_update", in, a, stream_);
        // The same step read from a tensor on the device.
        AttrMap without_step;
        for (const auto& [name, value] : a.entries()) {
          if (name != "step") without_step.Set(name, value);
        }
        std::vector<HostTensor> at_step = in;
        at_step.push_back(
            FromValues(Shape{}, DType::kI64, {static_cast<double>(a.Find("step")->int_value())}));
        ExpectCudaMatchesCpu("adam_update_at_step", at_step, without_step, stream_);
      }
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
