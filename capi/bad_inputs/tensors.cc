// Bad inputs: tensor creation, queries, data and DLPack (catalogue.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

int dlpack_deletions = 0;
int64_t dl_shape[8] = {2, 3};
int64_t dl_strides[8] = {3, 1};
DLManagedTensorVersioned dl_versioned;
DLManagedTensor dl_legacy;

DLManagedTensorVersioned* Versioned() {
  std::memset(&dl_versioned, 0, sizeof(dl_versioned));
  dl_shape[0] = 2;
  dl_shape[1] = 3;
  dl_strides[0] = 3;
  dl_strides[1] = 1;
  dl_versioned.version = {1, 1};
  dl_versioned.deleter = [](DLManagedTensorVersioned*) { ++dlpack_deletions; };
  DLTensor& t = dl_versioned.dl_tensor;
  t.data = f.data;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = dl_shape;
  t.strides = nullptr;
  return &dl_versioned;
}

DLManagedTensor* Legacy() {
  std::memset(&dl_legacy, 0, sizeof(dl_legacy));
  dl_shape[0] = 2;
  dl_shape[1] = 3;
  dl_legacy.deleter = [](DLManagedTensor*) { ++dlpack_deletions; };
  DLTensor& t = dl_legacy.dl_tensor;
  t.data = f.data;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = dl_shape;
  return &dl_legacy;
}

std::vector<Case> TensorCases() {
  return {
    // ---- tensor creation
    CASE("tess_tensor_from_host", "out is NULL", kInvalid, "out",
         return tess_tensor_from_host(nullptr, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_host", "data is NULL for 6 elements", kInvalid, "buffer is NULL",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_host", "shape is NULL with ndim 2", kInvalid, "shape",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, nullptr, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_host", "negative dim -3", kInvalid, "-3", tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kNegative, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_host", "shape [2^62+1,4] (element count overflows)", kInvalid,
             "overflows", tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_host", "dtype 42", kInvalid, "42", tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kShape23, 2, 42, f.p, f.b);),
        CASE("tess_tensor_from_host", "placement is NULL", kInvalid, "placement",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, nullptr, f.b);),
        CASE("tess_tensor_from_host", "nd_sbp is NULL", kInvalid, "nd_sbp",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, nullptr);),
        CASE("tess_tensor_from_host", "S(2) of a 2-d shape", kInvalid, "S(2)",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.s2);),
        CASE("tess_tensor_from_host", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
             tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.bb);),
        CASE("tess_tensor_from_host", "9 dims", kInvalid, "9", tess_tensor* o = nullptr;
             return tess_tensor_from_host(&o, f.data, kNineDims, 9, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_from_local", "local is NULL for 6 elements", kInvalid, "local",
             tess_tensor* o = nullptr;
             return tess_tensor_from_local(&o, nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b,
                                           nullptr);),
        CASE("tess_tensor_from_local", "local shape [2,3] but logical [5,3] split on 1 rank",
             kInvalid, "[5,3]", const int64_t logical[] = {5, 3};
             tess_tensor* o = nullptr; return tess_tensor_from_local(
                 &o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.s0, logical);),
        CASE("tess_tensor_from_local", "logical shape [2^62+1,4]", kInvalid, "overflows",
             const int64_t local[] = {1, 4};
             tess_tensor* o = nullptr; return tess_tensor_from_local(
                 &o, f.data, local, 2, TESS_DTYPE_F32, f.p, f.s0, kOverflowing);),
        CASE("tess_tensor_from_local", "local shape [2^62+1,4]", kInvalid, "overflows",
             tess_tensor* o = nullptr;
             return tess_tensor_from_local(&o, f.data, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b,
                                           nullptr);),
        CASE("tess_tensor_from_local", "B with logical shape unlike the local one", kInvalid,
             "[3,2]", const int64_t logical[] = {3, 2};
             tess_tensor* o = nullptr; return tess_tensor_from_local(
                 &o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, logical);),
        CASE("tess_tensor_full", "bool value 2", kInvalid, "2", const int64_t s[] = {2};
             tess_tensor* o = nullptr;
             return tess_tensor_full(&o, s, 1, TESS_DTYPE_BOOL, 2.0, f.p, f.b);),
        CASE("tess_tensor_full", "bool as P (bool is never partial)", kInvalid, "bool",
             const int64_t s[] = {2};
             tess_tensor* o = nullptr;
             return tess_tensor_full(&o, s, 1, TESS_DTYPE_BOOL, 1.0, f.p, f.psum);),
        CASE("tess_tensor_arange", "dtype bool", kInvalid, "bool", tess_tensor* o = nullptr;
             return tess_tensor_arange(&o, 0, 2, 1, TESS_DTYPE_BOOL, f.p, f.b);),
        CASE("tess_tensor_full", "shape [2^62] of f32 (byte size overflows)", kInvalid,
             "4611686018427387904", const int64_t s[] = {int64_t{1} << 62};
             tess_tensor* o = nullptr;
             return tess_tensor_full(&o, s, 1, TESS_DTYPE_F32, 1.0, f.p, f.s0);),
        CASE("tess_tensor_full", "shape [2^62+1,4] (element count overflows)", kInvalid,
             "overflows", tess_tensor* o = nullptr;
             return tess_tensor_full(&o, kOverflowing, 2, TESS_DTYPE_F32, 1.0, f.p, f.s0);),
        CASE("tess_tensor_full", "dtype -1", kInvalid, "-1", tess_tensor* o = nullptr;
             return tess_tensor_full(&o, kShape23, 2, -1, 1.0, f.p, f.b);),
        CASE("tess_tensor_full", "out is NULL", kInvalid, "out",
             return tess_tensor_full(nullptr, kShape23, 2, TESS_DTYPE_F32, 1.0, f.p, f.b);),
        CASE("tess_tensor_arange", "step 0", kInvalid, "step", tess_tensor* o = nullptr;
             return tess_tensor_arange(&o, 0, 10, 0, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_arange", "start NaN", kInvalid, "nan", tess_tensor* o = nullptr;
             return tess_tensor_arange(&o, kNaN, 10, 1, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_arange", "stop +inf", kInvalid, "inf", tess_tensor* o = nullptr;
             return tess_tensor_arange(&o, 0, kInf, 1, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_tensor_arange", "count past int64 (-1e308 to 1e308 by 1)", kInvalid, "arange",
             tess_tensor* o = nullptr;
             return tess_tensor_arange(&o, -1e308, 1e308, 1, TESS_DTYPE_F64, f.p, f.b);),
        CASE("tess_tensor_rand", "shape [2^62+1,4]", kInvalid, "overflows",
             tess_tensor* o = nullptr;
             return tess_tensor_rand(&o, kOverflowing, 2, TESS_DTYPE_F32, 1, f.p, f.b);),
        CASE("tess_tensor_rand", "placement is NULL", kInvalid, "placement",
             tess_tensor* o = nullptr;
             return tess_tensor_rand(&o, kShape23, 2, TESS_DTYPE_F32, 1, nullptr, f.b);),
        CASE("tess_tensor_randn", "negative dim -3", kInvalid, "-3", tess_tensor* o = nullptr;
             return tess_tensor_randn(&o, kNegative, 2, TESS_DTYPE_F32, 1, f.p, f.b);),
        CASE("tess_tensor_randn", "dtype 42", kInvalid, "42", tess_tensor* o = nullptr;
             return tess_tensor_randn(&o, kShape23, 2, 42, 1, f.p, f.b);),

        // ---- tensor queries and data
        CASE("tess_tensor_shape", "out_dims is NULL", kInvalid, "out_dims", size_t n;
             return tess_tensor_shape(nullptr, &n, f.x);),
        CASE("tess_tensor_shape", "tensor is NULL", kInvalid, "tensor", const int64_t* d; size_t n;
             return tess_tensor_shape(&d, &n, nullptr);),
        CASE("tess_tensor_num_elements", "tensor is NULL", kInvalid, "tensor", int64_t n;
             return tess_tensor_num_elements(&n, nullptr);),
        CASE("tess_tensor_dtype", "out is NULL", kInvalid, "out",
             return tess_tensor_dtype(nullptr, f.x);),
        CASE("tess_tensor_placement", "tensor is NULL", kInvalid, "tensor",
             tess_placement* o = nullptr;
             return tess_tensor_placement(&o, nullptr);),
        CASE("tess_tensor_nd_sbp", "out is NULL", kInvalid, "out",
             return tess_tensor_nd_sbp(nullptr, f.x);),
        CASE("tess_tensor_has_local", "tensor is NULL", kInvalid, "tensor", int32_t h;
             return tess_tensor_has_local(&h, nullptr);),
        CASE("tess_tensor_local_shape", "out_ndim is NULL", kInvalid, "out_ndim", const int64_t* d;
             return tess_tensor_local_shape(&d, nullptr, f.x);),
        CASE("tess_tensor_local_num_elements", "tensor is NULL", kInvalid, "tensor", int64_t n;
             return tess_tensor_local_num_elements(&n, nullptr);),
        CASE("tess_tensor_to_host", "out_bytes 23 for 24 bytes", kInvalid, "23", float out[6];
             return tess_tensor_to_host(out, 23, f.x);),
        CASE("tess_tensor_to_host", "out is NULL", kInvalid, "out",
             return tess_tensor_to_host(nullptr, 24, f.x);),
        CASE("tess_tensor_to_host", "tensor is NULL", kInvalid, "tensor", float out[6];
             return tess_tensor_to_host(out, sizeof(out), nullptr);),
        CASE("tess_tensor_copy_local", "out_bytes 4 for 24 bytes", kInvalid, "4", float out[6];
             return tess_tensor_copy_local(out, 4, f.x);),
        CASE("tess_tensor_synchronize", "tensor is NULL", kInvalid, "tensor",
             return tess_tensor_synchronize(nullptr);),
        CASE("tess_tensor_to_global", "S(-3) for a 2-d tensor", kInvalid, "-3",
             tess_nd_sbp* n = nullptr;
             tess_status st = tess_nd_sbp_parse(&n, "S(-3)"); if (st != TESS_OK) return st;
             tess_tensor* o = nullptr; st = tess_tensor_to_global(&o, f.x, f.p, n);
             tess_nd_sbp_destroy(n); tess_tensor_destroy(o); return st;),
        CASE("tess_tensor_to_global", "placement is NULL", kInvalid, "placement",
             tess_tensor* o = nullptr;
             return tess_tensor_to_global(&o, f.x, nullptr, f.b);),
        CASE("tess_tensor_to_global", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
             tess_tensor* o = nullptr;
             return tess_tensor_to_global(&o, f.x, f.p, f.bb);),
        CASE("tess_tensor_to_global", "S(2) of a 2-d tensor", kInvalid, "S(2)",
             tess_tensor* o = nullptr;
             return tess_tensor_to_global(&o, f.x, f.p, f.s2);),
        CASE("tess_tensor_to_global", "tensor is NULL", kInvalid, "tensor",
             tess_tensor* o = nullptr;
             return tess_tensor_to_global(&o, nullptr, f.p, f.b);),

        // ---- DLPack
        CASE("tess_tensor_to_dlpack", "out is NULL", kInvalid, "out",
             return tess_tensor_to_dlpack(nullptr, f.x);),
        CASE("tess_tensor_to_dlpack_legacy", "tensor is NULL", kInvalid, "tensor",
             DLManagedTensor* o = nullptr;
             return tess_tensor_to_dlpack_legacy(&o, nullptr);),
        CASE("tess_tensor_from_dlpack", "local is NULL", kInvalid, "local",
             tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, nullptr, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "major version 2", kInvalid, "2",
             DLManagedTensorVersioned* m = Versioned();
             m->version.major = 2; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "ndim -1", kInvalid, "-1",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.ndim = -1; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "ndim 9", kInvalid, "9",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.ndim = 9; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "shape NULL", kInvalid, "shape",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.shape = nullptr; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "negative dim -3", kInvalid, "-3",
             DLManagedTensorVersioned* m = Versioned();
             dl_shape[1] = -3; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "data NULL for 6 elements", kInvalid, "buffer is NULL",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.data = nullptr; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "complex64 elements", kInvalid, "code 5, bits 64",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.dtype = {kDLComplex, 64, 1}; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "uint8 elements", kInvalid, "code 1, bits 8",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.dtype = {kDLUInt, 8, 1}; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "4 lanes", kInvalid, "lanes",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.dtype.lanes = 4; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "Vulkan device", kInvalid, "7",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.device = {kDLVulkan, 0}; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "stride 2^62 (offset overflows)", kInvalid, "stride",
             DLManagedTensorVersioned* m = Versioned();
             dl_strides[0] = int64_t{1} << 62; m->dl_tensor.strides = dl_strides;
             tess_tensor* o = nullptr; return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "negative stride -2^62", kInvalid, "stride",
             DLManagedTensorVersioned* m = Versioned();
             dl_strides[1] = -(int64_t{1} << 62); m->dl_tensor.strides = dl_strides;
             tess_tensor* o = nullptr; return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "byte_offset 2^63", kInvalid, "byte_offset",
             DLManagedTensorVersioned* m = Versioned();
             m->dl_tensor.byte_offset = uint64_t{1} << 63; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "shape [2^62+1,4]", kInvalid, "overflows",
             DLManagedTensorVersioned* m = Versioned();
             dl_shape[0] = kBig; dl_shape[1] = 4; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "placement is NULL", kInvalid, "placement",
             tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, Versioned(), nullptr, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack", "S(2) of a 2-d piece", kInvalid, "S(2)",
             tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack(&o, Versioned(), f.p, f.s2, nullptr);),
        CASE("tess_tensor_from_dlpack_legacy", "uint8 elements", kInvalid, "code 1, bits 8",
             DLManagedTensor* m = Legacy();
             m->dl_tensor.dtype = {kDLUInt, 8, 1}; tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack_legacy(&o, m, f.p, f.b, nullptr);),
        CASE("tess_tensor_from_dlpack_legacy", "local is NULL", kInvalid, "local",
             tess_tensor* o = nullptr;
             return tess_tensor_from_dlpack_legacy(&o, nullptr, f.p, f.b, nullptr);),
  };
}

}  // namespace tessera::bad_inputs
