// Helpers for tests of the C API's tensors: owning handles, creation from vectors and
// reading values back, all through tessera.h only. A failing call records a gtest
// failure with the C API's message and yields a null handle or an empty vector.
#ifndef TESSERA_CAPI_TENSOR_TEST_UTIL_H_
#define TESSERA_CAPI_TENSOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace tessera::capi_test {

inline std::string LastError() { return tess_last_error_message(); }

struct Destroy {
  void operator()(tess_tensor* t) const { tess_tensor_destroy(t); }
  void operator()(tess_placement* p) const { tess_placement_destroy(p); }
  void operator()(tess_nd_sbp* s) const { tess_nd_sbp_destroy(s); }
  void operator()(tess_op_call* c) const { tess_op_call_destroy(c); }
  void operator()(tess_explanation* e) const { tess_explanation_destroy(e); }
};
using TensorPtr = std::unique_ptr<tess_tensor, Destroy>;
using PlacementPtr = std::unique_ptr<tess_placement, Destroy>;
using NdSbpPtr = std::unique_ptr<tess_nd_sbp, Destroy>;
using OpCallPtr = std::unique_ptr<tess_op_call, Destroy>;
using ExplanationPtr = std::unique_ptr<tess_explanation, Destroy>;

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr tess_dtype value = TESS_DTYPE_F32;
};
template <>
struct DTypeOf<double> {
  static constexpr tess_dtype value = TESS_DTYPE_F64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr tess_dtype value = TESS_DTYPE_I32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr tess_dtype value = TESS_DTYPE_I64;
};

inline PlacementPtr Placement(const std::string& text) {
  tess_placement* p = nullptr;
  EXPECT_EQ(tess_placement_parse(&p, text.c_str()), TESS_OK) << text << ": " << LastError();
  return PlacementPtr(p);
}

inline NdSbpPtr NdSbp(const std::string& text) {
  tess_nd_sbp* s = nullptr;
  EXPECT_EQ(tess_nd_sbp_parse(&s, text.c_str()), TESS_OK) << text << ": " << LastError();
  return NdSbpPtr(s);
}

inline int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The logical tensor `data` of `shape` held as `sbp` on `placement` (texts).
template <typename T>
TensorPtr FromHost(const std::vector<T>& data, const std::vector<int64_t>& shape,
                   const std::string& placement, const std::string& sbp) {
  PlacementPtr p = Placement(placement);
  NdSbpPtr s = NdSbp(sbp);
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_tensor_from_host(&t, data.data(), shape.data(), shape.size(), DTypeOf<T>::value,
                                  p.get(), s.get()),
            TESS_OK)
      << LastError();
  return TensorPtr(t);
}

// The logical shape of `t`, or of this rank's piece of it (local = true), copied
// out of the borrowed getters.
inline std::vector<int64_t> ShapeOf(const tess_tensor* t, bool local = false) {
  const int64_t* dims = nullptr;
  size_t ndim = 0;
  EXPECT_EQ(local ? tess_tensor_local_shape(&dims, &ndim, t) : tess_tensor_shape(&dims, &ndim, t),
            TESS_OK)
      << LastError();
  return std::vector<int64_t>(dims, dims + ndim);
}

// The logical value of `t` (a collective: every rank calls).
template <typename T>
std::vector<T> ToHost(const tess_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(tess_tensor_num_elements(&n, t), TESS_OK) << LastError();
  std::vector<T> out(static_cast<size_t>(n));
  EXPECT_EQ(tess_tensor_to_host(out.data(), out.size() * sizeof(T), t), TESS_OK) << LastError();
  return out;
}

// The nd-sbp of `t` as text.
inline std::string NdSbpText(const tess_tensor* t) {
  tess_nd_sbp* s = nullptr;
  EXPECT_EQ(tess_tensor_nd_sbp(&s, t), TESS_OK) << LastError();
  NdSbpPtr owned(s);
  return s ? tess_nd_sbp_string(s) : "";
}

// Whether the last error message contains `text`.
inline ::testing::AssertionResult ErrorHas(const std::string& text) {
  const std::string message = LastError();
  if (message.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << text << "\"";
}

}  // namespace tessera::capi_test

#endif  // TESSERA_CAPI_TENSOR_TEST_UTIL_H_
