/* DLPack capsules for the Python binding (the end of bindings/tessera.i, after the
 * typemaps are applied): _tensor_to_capsule(t, versioned) makes the PyCapsule
 * "dltensor_versioned" (or the pre-1.0 "dltensor") of a tensor's local piece;
 * _tensor_from_capsule(capsule, placement, nd_sbp, logical_shape) consumes either
 * kind. A capsule nobody consumed is deleted with it. */

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
%inline %{
/* A new DLPack capsule of `tensor`'s local piece: "dltensor_versioned" when
 * `versioned`, else the pre-1.0 "dltensor". */
PyObject* tess_py_tensor_to_capsule(const tess_tensor* tensor, int versioned) {
  PyObject* capsule;
  tess_status status;
  if (versioned) {
    DLManagedTensorVersioned* m = NULL;
    status = tess_tensor_to_dlpack(&m, tensor);
    if (status != TESS_OK) {
      tess_py_set_error(status);
      return NULL;
    }
    capsule = PyCapsule_New(m, "dltensor_versioned", tess_py_versioned_capsule_destructor);
    if (capsule == NULL) m->deleter(m);
    return capsule;
  } else {
    DLManagedTensor* m = NULL;
    status = tess_tensor_to_dlpack_legacy(&m, tensor);
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
    if (PyCapsule_SetName(capsule, "used_dltensor_versioned") != 0) return TESS_PY_ERROR_SET;
    return tess_tensor_from_dlpack(out, m, placement, nd_sbp, logical_shape);
  }
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    if (PyCapsule_SetName(capsule, "used_dltensor") != 0) return TESS_PY_ERROR_SET;
    return tess_tensor_from_dlpack_legacy(out, m, placement, nd_sbp, logical_shape);
  }
  PyErr_SetString(PyExc_TypeError,
                  "expected an unused DLPack capsule (\"dltensor_versioned\" or \"dltensor\")");
  return TESS_PY_ERROR_SET;
}
%}
