/*
 * The DLPack v1.x ABI (https://dmlc.github.io/dlpack/latest/c_api.html), written
 * from the specification for tess_tensor_to_dlpack / tess_tensor_from_dlpack.
 *
 * The include guard and every name are DLPack's own, so this header and the
 * official <dlpack/dlpack.h> are interchangeable: whichever a program includes
 * first wins and the other is skipped, and both describe the same memory layout.
 * C99; only <stdint.h>.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* A major version other than DLPACK_MAJOR_VERSION means another layout: the
 * consumer may then only call the deleter. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where the data lives. Tessera produces kDLCPU and kDLCUDA. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id; /* 0 for host memory */
} DLDevice;

/* DLDataType.code values. Tessera maps f32/f64/f16 to kDLFloat, i32/i64 to
 * kDLInt and bf16 to kDLBfloat. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U
} DLDataTypeCode;

/* One element: `code` (a DLDataTypeCode, stored as uint8_t), `bits` per lane and
 * `lanes` (1 for scalars). */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A view of an N-d array; owns nothing. Element (i0, ..., in) is at byte
 * (char*)data + byte_offset + sum(ik * strides[k]) * bits / 8. `strides` counts
 * elements; NULL means compact row-major. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 exchange struct (the Python capsule "dltensor"). The consumer calls
 * deleter(self) once when done; the deleter frees `self` too. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* DLManagedTensorVersioned.flags bits. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The 1.x exchange struct (the Python capsule "dltensor_versioned"). Fields up to
 * and including `flags` keep their places across major versions, so the deleter
 * can always be called. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLPACK_DLPACK_H_ */
