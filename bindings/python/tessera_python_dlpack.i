/* DLPack capsules for the Python binding (the end of bindings/tessera.i, after the
 * typemaps are applied): _tensor_to_capsule(t, versioned) makes the PyCapsule
 * "dltensor_versioned" (or the pre-1.0 "dltensor") of a tensor's local piece;
 * _tensor_from_capsule(capsule, placement, nd_sbp, logical_shape) consumes either
 * kind; _tensor_dlpack_device(t) is the (device_type, device_id) of the local piece.
 * A capsule nobody consumed is deleted with it. These helpers touch Python objects,
 * so SWIG keeps the GIL around them; they release it around the C calls that wait
 * (the export waits for the CUDA kernels writing the piece; the import is
 * collective). */

%{
#include "tessera/dlpack.h"

/* A capsule still under its original name was never consumed: delete it here. */
static void tess_py_versioned_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    DLManagedTensorVersioned* m =
        (DLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (m != NULL && m->deleter != NULL) m->deleter(m);
  }
}

static void tess_py_legacy_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    if (m != NULL && m->deleter != NULL) m->deleter(m);
  }
}
%}

%rename(_tensor_to_capsule) tess_py_tensor_to_capsule;
%rename(_tensor_from_capsule) tess_py_tensor_from_capsule;
%rename(_tensor_dlpack_device) tess_py_tensor_dlpack_device;
%rename(_tensor_to_capsule_copy) tess_py_tensor_to_capsule_copy;
%apply int32_t* TESS_OUT { int32_t* out_device_type, int32_t* out_device_id };
%inline %{
/* A new DLPack capsule of `tensor`'s local piece: "dltensor_versioned" when
 * `versioned`, else the pre-1.0 "dltensor". */
PyObject* tess_py_tensor_to_capsule(const tess_tensor* tensor, int versioned) {
  PyObject* capsule;
  tess_status status;
  if (versioned) {
    DLManagedTensorVersioned* m = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = tess_tensor_to_dlpack(&m, tensor);
    Py_END_ALLOW_THREADS
    if (status != TESS_OK) {
      tess_py_set_error(status);
      return NULL;
    }
    capsule = PyCapsule_New(m, "dltensor_versioned", tess_py_versioned_capsule_destructor);
    if (capsule == NULL) m->deleter(m);
    return capsule;
  } else {
    DLManagedTensor* m = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = tess_tensor_to_dlpack_legacy(&m, tensor);
    Py_END_ALLOW_THREADS
    if (status != TESS_OK) {
      tess_py_set_error(status);
      return NULL;
    }
    capsule = PyCapsule_New(m, "dltensor", tess_py_legacy_capsule_destructor);
    if (capsule == NULL) m->deleter(m);
    return capsule;
  }
}

/* The global tensor whose local piece is in `capsule` (either name; marked used, as
 * the protocol asks of a consumer). */
tess_status tess_py_tensor_from_capsule(tess_tensor** out, PyObject* capsule,
                                        const tess_placement* placement,
                                        const tess_nd_sbp* nd_sbp,
                                        const int64_t* logical_shape) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    DLManagedTensorVersioned* m =
        (DLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned");
    tess_status status;
    if (PyCapsule_SetName(capsule, "used_dltensor_versioned") != 0) return TESS_PY_ERROR_SET;
    Py_BEGIN_ALLOW_THREADS
    status = tess_tensor_from_dlpack(out, m, placement, nd_sbp, logical_shape);
    Py_END_ALLOW_THREADS
    return status;
  }
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    tess_status status;
    if (PyCapsule_SetName(capsule, "used_dltensor") != 0) return TESS_PY_ERROR_SET;
    Py_BEGIN_ALLOW_THREADS
    status = tess_tensor_from_dlpack_legacy(out, m, placement, nd_sbp, logical_shape);
    Py_END_ALLOW_THREADS
    return status;
  }
  PyErr_SetString(PyExc_TypeError,
                  "expected an unused DLPack capsule (\"dltensor_versioned\" or \"dltensor\")");
  return TESS_PY_ERROR_SET;
}

/* The DLPack device (kDLCPU 1 / kDLCUDA 2, device id) of `tensor`'s local piece, as
 * its export states it. The C API has no getter for a tensor's device: this makes
 * the export (which for a cuda piece waits for the kernels writing it), reads its
 * dl_tensor.device and releases it. FAILED_PRECONDITION on a rank outside the
 * placement, like the export. */
tess_status tess_py_tensor_dlpack_device(int32_t* out_device_type, int32_t* out_device_id,
                                         const tess_tensor* tensor) {
  DLManagedTensorVersioned* m = NULL;
  tess_status status;
  Py_BEGIN_ALLOW_THREADS
  status = tess_tensor_to_dlpack(&m, tensor);
  if (status == TESS_OK) {
    *out_device_type = (int32_t)m->dl_tensor.device.device_type;
    *out_device_id = (int32_t)m->dl_tensor.device.device_id;
    if (m->deleter != NULL) m->deleter(m);
  }
  Py_END_ALLOW_THREADS
  return status;
}

/* One malloc'd block holding a copy's managed struct, its shape and its data
 * (256-byte aligned, as DLPack recommends); the deleter frees the block. */
static void tess_py_copy_deleter(DLManagedTensorVersioned* self) { free(self); }
static void tess_py_copy_deleter_legacy(DLManagedTensor* self) { free(self); }

/* __dlpack__(copy=True): a new capsule of a COPY of `tensor`'s local piece, in
 * memory the capsule owns: writable, and flagged IS_COPIED when versioned. Host
 * pieces only (BufferError for a cuda piece: this module does not link CUDA). */
PyObject* tess_py_tensor_to_capsule_copy(const tess_tensor* tensor, int versioned) {
  DLManagedTensorVersioned* src = NULL;
  tess_status status;
  size_t header, shape_at, data_at, nbytes = 0, elements = 1;
  int32_t d, ndim;
  char* block = NULL;
  DLTensor* dst;
  PyObject* capsule;
  Py_BEGIN_ALLOW_THREADS
  status = tess_tensor_to_dlpack(&src, tensor);
  Py_END_ALLOW_THREADS
  if (status != TESS_OK) {
    tess_py_set_error(status);
    return NULL;
  }
  if (src->dl_tensor.device.device_type != kDLCPU) {
    src->deleter(src);
    PyErr_SetString(PyExc_BufferError,
                    "tessera: __dlpack__(copy=True) copies host pieces only; this piece is on "
                    "a CUDA device (export it without copy, or copy on the consumer's side)");
    return NULL;
  }
  ndim = src->dl_tensor.ndim;
  for (d = 0; d < ndim; ++d) elements *= (size_t)src->dl_tensor.shape[d];
  nbytes = elements * ((size_t)src->dl_tensor.dtype.bits * src->dl_tensor.dtype.lanes + 7) / 8;
  header = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  shape_at = (header + 7) / 8 * 8;
  data_at = (shape_at + sizeof(int64_t) * (size_t)(ndim > 0 ? ndim : 1) + 255) / 256 * 256;
  if (posix_memalign((void**)&block, 256, data_at + (nbytes > 0 ? nbytes : 1)) != 0) {
    src->deleter(src);
    PyErr_NoMemory();
    return NULL;
  }
  memset(block, 0, data_at);
  if (versioned) {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)block;
    m->version = src->version;
    m->deleter = tess_py_copy_deleter;
    m->flags = DLPACK_FLAG_BITMASK_IS_COPIED;
    dst = &m->dl_tensor;
  } else {
    DLManagedTensor* m = (DLManagedTensor*)block;
    m->deleter = tess_py_copy_deleter_legacy;
    dst = &m->dl_tensor;
  }
  dst->data = block + data_at;
  dst->device = src->dl_tensor.device;
  dst->ndim = ndim;
  dst->dtype = src->dl_tensor.dtype;
  dst->shape = (int64_t*)(block + shape_at);
  for (d = 0; d < ndim; ++d) dst->shape[d] = src->dl_tensor.shape[d];
  dst->strides = NULL; /* compact row-major, as the export is */
  dst->byte_offset = 0;
  if (nbytes > 0) {
    memcpy(dst->data, (const char*)src->dl_tensor.data + src->dl_tensor.byte_offset, nbytes);
  }
  src->deleter(src);
  if (versioned) {
    capsule = PyCapsule_New(block, "dltensor_versioned", tess_py_versioned_capsule_destructor);
  } else {
    capsule = PyCapsule_New(block, "dltensor", tess_py_legacy_capsule_destructor);
  }
  if (capsule == NULL) free(block);
  return capsule;
}
%}
