/* Python section of bindings/tessera.i: the calling convention as Python sees it.
 *
 * - A failing tess_status raises the exception that tessera/_errors.py registers through
 *   _set_error_factory (TesseraError or its per-code subclass), built from the code
 *   and tess_last_error_message() inside the same wrapper call, under the GIL.
 * - Out-params are removed from the argument list and returned: one as the value,
 *   several as a tuple, in declaration order. Handles come back owned: the object
 *   calls tess_x_destroy when collected or closed.
 * - Array pairs (const T* TESS_ARRAY, size_t TESS_LEN) take any sequence of ints;
 *   (kinds, split_axes, num_axes) takes a sequence of (kind, split_axis) pairs.
 * - Host buffers are objects with the buffer protocol (a C-contiguous numpy array,
 *   bytes, bytearray, memoryview): TESS_IN_BUFFER any or None (with TESS_IN_BYTES,
 *   its size becomes the byte count), TESS_OUT_BUFFER a writable one whose size
 *   becomes the byte count, TESS_INOUT_BUFFER a writable one or None,
 *   TESS_BUFFER_LIST a sequence of writable ones or None. TESS_OPT_SHAPE is None or
 *   a sequence of ints.
 * - tess_op_call_apply takes a sequence of Tensors and returns a tuple of new Tensors; other
 *   tensor lists (tess_plan_instance_run, tess_capture_end) take a sequence of Tensors.
 * - TESS_IN_BUFFER_LIST (tess_plan_instance_run_local) takes a sequence of readable buffers or
 *   None; each one's size becomes its byte count.
 * - DLPack capsules: python/tessera_python_dlpack.i.
 * - The GIL is released around every call that computes or communicates (runtime
 *   start and stop, tensor creation and data movement, ops, inference, boxing,
 *   collectives, plan compile / instantiate / runs / outputs, serving's create /
 *   add_plan / follow / stop / run / check_health and the server's destroy:
 *   TESS_PY_RELEASE_GIL below; the DLPack helpers release it around their C calls
 *   themselves), so other Python threads run meanwhile, a pusher thread can feed a
 *   plan while run_pushed waits, and many threads can wait in server_run at once.
 *   Cheap local getters (metadata, strings, other handles' destroy) keep
 *   it. The C call then touches only C data: every argument has been converted, and
 *   the status is turned into an exception after the GIL is back, on the same OS
 *   thread, so tess_last_error_message() is still the call's.
 */

%define TESS_PY_RELEASE_GIL(NAME)
%exception NAME {
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%enddef
/* Runtime. */
TESS_PY_RELEASE_GIL(tess_runtime_init)
TESS_PY_RELEASE_GIL(tess_shim_runtime_init_with_options)
TESS_PY_RELEASE_GIL(tess_runtime_finalize)
/* Tensors: creation (collective), data, layout changes. */
TESS_PY_RELEASE_GIL(tess_tensor_from_host)
TESS_PY_RELEASE_GIL(tess_tensor_from_local)
TESS_PY_RELEASE_GIL(tess_tensor_full)
TESS_PY_RELEASE_GIL(tess_tensor_arange)
TESS_PY_RELEASE_GIL(tess_tensor_rand)
TESS_PY_RELEASE_GIL(tess_tensor_randn)
TESS_PY_RELEASE_GIL(tess_tensor_to_host)
TESS_PY_RELEASE_GIL(tess_tensor_copy_local)
TESS_PY_RELEASE_GIL(tess_tensor_to_global)
/* Autograd: backward runs the gradient ops (collective). */
TESS_PY_RELEASE_GIL(tess_shim_autograd_backward)
/* Optimizers: create, step and zero_grad are collective (fused create and step
 * all-reduce). */
TESS_PY_RELEASE_GIL(tess_shim_optimizer_create)
TESS_PY_RELEASE_GIL(tess_optimizer_step)
TESS_PY_RELEASE_GIL(tess_optimizer_zero_grad)
/* Ops: in the generated ../ops_generated.i (tools/opgen). */
/* SBP signature inference. */
TESS_PY_RELEASE_GIL(tess_op_call_infer)
TESS_PY_RELEASE_GIL(tess_op_call_explain)
/* Boxing and collectives. */
TESS_PY_RELEASE_GIL(tess_boxing_run)
TESS_PY_RELEASE_GIL(tess_boxing_plan_create)
TESS_PY_RELEASE_GIL(tess_comm_allreduce)
TESS_PY_RELEASE_GIL(tess_bucketed_allreducer_run)
/* Plan mode. */
TESS_PY_RELEASE_GIL(tess_program_add_op)
TESS_PY_RELEASE_GIL(tess_capture_placeholder)
TESS_PY_RELEASE_GIL(tess_capture_end)
TESS_PY_RELEASE_GIL(tess_shim_plan_compile)
TESS_PY_RELEASE_GIL(tess_plan_instantiate)
TESS_PY_RELEASE_GIL(tess_plan_instance_run)
TESS_PY_RELEASE_GIL(tess_plan_instance_run_local)
TESS_PY_RELEASE_GIL(tess_plan_instance_push)
TESS_PY_RELEASE_GIL(tess_plan_instance_run_pushed)
TESS_PY_RELEASE_GIL(tess_plan_instance_close)
TESS_PY_RELEASE_GIL(tess_plan_instance_output)
TESS_PY_RELEASE_GIL(tess_plan_instance_output_local)
/* Serving: create is collective; add_plan instantiates the plan; follow, stop, run and
 * check_health block until followers, the dispatcher or a batch answer; destroy stops a
 * driver that was not stopped (and so waits for its followers). */
TESS_PY_RELEASE_GIL(tess_shim_server_create)
TESS_PY_RELEASE_GIL(tess_shim_server_add_plan)
TESS_PY_RELEASE_GIL(tess_server_follow)
TESS_PY_RELEASE_GIL(tess_server_stop)
TESS_PY_RELEASE_GIL(tess_server_run)
TESS_PY_RELEASE_GIL(tess_server_check_health)
TESS_PY_RELEASE_GIL(tess_server::~tess_server)

%{
/* Returned by the helpers below when they have raised a Python error themselves. */
#define TESS_PY_ERROR_SET (-1)

/* The callable tessera/_errors.py registers: (code, message) -> exception instance. */
static PyObject* tess_py_error_factory = NULL;

static void tess_py_set_error(tess_status code) {
  const char* message = tess_last_error_message();
  PyObject* exc = NULL;
  if (tess_py_error_factory != NULL) {
    exc = PyObject_CallFunction(tess_py_error_factory, "is", (int)code, message);
  }
  if (exc == NULL) {
    if (!PyErr_Occurred()) {
      PyErr_Format(PyExc_RuntimeError, "%s: %s", tess_status_string(code), message);
    }
    return;
  }
  PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
  Py_DECREF(exc);
}

/* Out-params accumulate into a tuple (SWIG's own helper builds a list). Values are
 * ints or handles, never tuples, so a tuple result means "already several". */
static PyObject* tess_py_append(PyObject* result, PyObject* value) {
  PyObject* prev;
  PyObject* grown;
  Py_ssize_t i, n;
  if (value == NULL) return result;
  if (result == NULL || result == Py_None) {
    Py_XDECREF(result);
    return value;
  }
  prev = PyTuple_Check(result) ? result : PyTuple_Pack(1, result);
  n = PyTuple_Size(prev);
  grown = PyTuple_New(n + 1);
  for (i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(prev, i);
    Py_INCREF(item);
    PyTuple_SET_ITEM(grown, i, item);
  }
  PyTuple_SET_ITEM(grown, n, value);
  if (prev != result) Py_DECREF(prev);
  Py_DECREF(result);
  return grown;
}

/* Sequence of ints -> malloc'd array of `n` elements. Returns 0 with a Python
 * error set on failure. */
static int tess_py_int64_array(PyObject* seq, int64_t** out, size_t* n) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of ints");
  Py_ssize_t i, len;
  if (fast == NULL) return 0;
  len = PySequence_Fast_GET_SIZE(fast);
  *out = (int64_t*)malloc(sizeof(int64_t) * (size_t)(len > 0 ? len : 1));
  if (*out == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return 0;
  }
  for (i = 0; i < len; ++i) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return 0;
    }
    (*out)[i] = (int64_t)v;
  }
  *n = (size_t)len;
  Py_DECREF(fast);
  return 1;
}

static int tess_py_int32_array(PyObject* seq, int32_t** out, size_t* n) {
  int64_t* wide = NULL;
  size_t i;
  if (!tess_py_int64_array(seq, &wide, n)) {
    free(wide);
    return 0;
  }
  *out = (int32_t*)malloc(sizeof(int32_t) * (*n > 0 ? *n : 1));
  if (*out == NULL) {
    free(wide);
    PyErr_NoMemory();
    return 0;
  }
  for (i = 0; i < *n; ++i) {
    if (wide[i] < INT32_MIN || wide[i] > INT32_MAX) {
      PyErr_Format(PyExc_OverflowError, "element %zu (%lld) does not fit in int32", i,
                   (long long)wide[i]);
      free(wide);
      return 0;
    }
    (*out)[i] = (int32_t)wide[i];
  }
  free(wide);
  return 1;
}
%}

/* _set_error_factory(callable): used once by tessera/_errors.py. */
%rename(_set_error_factory) tess_py_set_error_factory;
%inline %{
void tess_py_set_error_factory(PyObject* factory) {
  Py_XINCREF(factory);
  Py_XDECREF(tess_py_error_factory);
  tess_py_error_factory = factory;
}
%}

/* --- Status ---------------------------------------------------------------- */
%typemap(out) tess_status {
  if ($1 != TESS_OK) {
    /* TESS_PY_ERROR_SET: a helper of this file raised a Python error itself. */
    if ($1 != TESS_PY_ERROR_SET) tess_py_set_error($1);
    SWIG_fail;
  }
  $result = SWIG_Py_Void();
}
/* tess_status_string takes a code, not a result. */
%apply int32_t { tess_status status };

/* --- Handle out-params ------------------------------------------------------- */
%typemap(in, numinputs=0) SWIGTYPE** ($*1_ltype handle = NULL) { $1 = &handle; }
%typemap(argout) SWIGTYPE** {
  $result = tess_py_append($result, SWIG_NewPointerObj(SWIG_as_voidptr(handle$argnum),
                                                       $*1_descriptor, SWIG_POINTER_OWN));
}

/* --- Scalar out-params ------------------------------------------------------- */
%define TESS_PY_OUT(CTYPE, TO_PY)
%typemap(in, numinputs=0) CTYPE* TESS_OUT (CTYPE value = 0) { $1 = &value; }
%typemap(argout) CTYPE* TESS_OUT { $result = tess_py_append($result, TO_PY(value$argnum)); }
%enddef
TESS_PY_OUT(int32_t, PyLong_FromLong)
TESS_PY_OUT(int64_t, PyLong_FromLongLong)
TESS_PY_OUT(uint64_t, PyLong_FromUnsignedLongLong)
TESS_PY_OUT(size_t, PyLong_FromSize_t)
TESS_PY_OUT(double, PyFloat_FromDouble)

/* --- Borrowed shapes: a tuple of ints, copied inside the call ------------------ */
%typemap(in, numinputs=0) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM)
    (const int64_t* dims = NULL, size_t ndim = 0) {
  $1 = ($1_ltype)&dims; /* SWIG declares the argument without its const */
  $2 = &ndim;
}
%typemap(argout) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) {
  PyObject* shape = PyTuple_New((Py_ssize_t)ndim$argnum);
  if (shape == NULL) SWIG_fail;
  for (size_t i = 0; i < ndim$argnum; ++i) {
    PyObject* d = PyLong_FromLongLong(dims$argnum[i]);
    if (d == NULL) {
      Py_DECREF(shape);
      SWIG_fail;
    }
    PyTuple_SET_ITEM(shape, (Py_ssize_t)i, d);
  }
  $result = tess_py_append($result, shape);
}

/* --- Array inputs ------------------------------------------------------------ */
%typemap(in) (const int64_t* TESS_ARRAY, size_t TESS_LEN) (int64_t* array = NULL) {
  if (!tess_py_int64_array($input, &array, &$2)) SWIG_fail;
  $1 = array;
}
%typemap(freearg) (const int64_t* TESS_ARRAY, size_t TESS_LEN) { free(array$argnum); }
%typemap(typecheck) (const int64_t* TESS_ARRAY, size_t TESS_LEN) { $1 = PySequence_Check($input) ? 1 : 0; }

%typemap(in) (const int32_t* TESS_ARRAY, size_t TESS_LEN) (int32_t* array = NULL) {
  if (!tess_py_int32_array($input, &array, &$2)) SWIG_fail;
  $1 = array;
}
%typemap(freearg) (const int32_t* TESS_ARRAY, size_t TESS_LEN) { free(array$argnum); }
%typemap(typecheck) (const int32_t* TESS_ARRAY, size_t TESS_LEN) { $1 = PySequence_Check($input) ? 1 : 0; }

/* [(kind, split_axis), ...] for tess_nd_sbp_create. */
%typemap(in) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes)
    (int32_t* kinds = NULL, int32_t* axes = NULL) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of (kind, split_axis) pairs");
  Py_ssize_t i, len;
  if (fast == NULL) SWIG_fail;
  len = PySequence_Fast_GET_SIZE(fast);
  kinds = (int32_t*)malloc(sizeof(int32_t) * (size_t)(len > 0 ? len : 1));
  axes = (int32_t*)malloc(sizeof(int32_t) * (size_t)(len > 0 ? len : 1));
  for (i = 0; i < len; ++i) {
    int32_t* pair = NULL;
    size_t n = 0;
    if (!tess_py_int32_array(PySequence_Fast_GET_ITEM(fast, i), &pair, &n)) {
      Py_DECREF(fast);
      free(pair);
      SWIG_fail;
    }
    if (n != 2) {
      free(pair);
      Py_DECREF(fast);
      PyErr_Format(PyExc_TypeError, "element %zd: expected a (kind, split_axis) pair", i);
      SWIG_fail;
    }
    kinds[i] = pair[0];
    axes[i] = pair[1];
    free(pair);
  }
  Py_DECREF(fast);
  $1 = kinds;
  $2 = axes;
  $3 = (size_t)len;
}
%typemap(freearg) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) {
  free(kinds$argnum);
  free(axes$argnum);
}

/* --- Host buffers -------------------------------------------------------------- */
%typemap(in) const void* TESS_IN_BUFFER (Py_buffer view, int have_view = 0) {
  $1 = NULL;
  if ($input != Py_None) {
    if (PyObject_GetBuffer($input, &view, PyBUF_C_CONTIGUOUS) != 0) SWIG_fail;
    have_view = 1;
    $1 = view.buf;
  }
}
%typemap(freearg) const void* TESS_IN_BUFFER {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}

%typemap(in) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) (Py_buffer view, int have_view = 0) {
  if (PyObject_GetBuffer($input, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) SWIG_fail;
  have_view = 1;
  $1 = view.buf;
  $2 = (size_t)view.len;
}
%typemap(freearg) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}

%typemap(in) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES)
    (Py_buffer view, int have_view = 0) {
  $1 = NULL;
  $2 = 0;
  if ($input != Py_None) {
    if (PyObject_GetBuffer($input, &view, PyBUF_C_CONTIGUOUS) != 0) SWIG_fail;
    have_view = 1;
    $1 = view.buf;
    $2 = (size_t)view.len;
  }
}
%typemap(freearg) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}

%typemap(in) void* TESS_INOUT_BUFFER (Py_buffer view, int have_view = 0) {
  $1 = NULL;
  if ($input != Py_None) {
    if (PyObject_GetBuffer($input, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) SWIG_fail;
    have_view = 1;
    $1 = view.buf;
  }
}
%typemap(freearg) void* TESS_INOUT_BUFFER {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}

/* A sequence of writable buffers (None for NULL). The views are held, so the memory
 * stays put, until the call returns. */
%typemap(in) void* const* TESS_BUFFER_LIST
    (void** pointers = NULL, Py_buffer* views = NULL, Py_ssize_t held = 0) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of writable buffers");
  Py_ssize_t i, len;
  if (fast == NULL) SWIG_fail;
  len = PySequence_Fast_GET_SIZE(fast);
  pointers = (void**)calloc((size_t)len + 1, sizeof(void*));
  views = (Py_buffer*)calloc((size_t)len + 1, sizeof(Py_buffer));
  if (pointers == NULL || views == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    SWIG_fail;
  }
  for (i = 0; i < len; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    if (item == Py_None) continue;
    if (PyObject_GetBuffer(item, &views[held], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
      Py_DECREF(fast);
      SWIG_fail;
    }
    pointers[i] = views[held++].buf;
  }
  Py_DECREF(fast);
  $1 = pointers;
}
%typemap(freearg) void* const* TESS_BUFFER_LIST {
  Py_ssize_t i;
  for (i = 0; i < held$argnum; ++i) PyBuffer_Release(&views$argnum[i]);
  free(views$argnum);
  free(pointers$argnum);
}

/* A sequence of readable buffers (None for NULL, size 0) with their sizes, held until
 * the call returns. */
%typemap(in) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
              size_t TESS_LIST_LEN)
    (const void** pointers = NULL, size_t* sizes = NULL, Py_buffer* views = NULL,
     Py_ssize_t held = 0) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of buffers");
  Py_ssize_t i, len;
  if (fast == NULL) SWIG_fail;
  len = PySequence_Fast_GET_SIZE(fast);
  pointers = (const void**)calloc((size_t)len + 1, sizeof(void*));
  sizes = (size_t*)calloc((size_t)len + 1, sizeof(size_t));
  views = (Py_buffer*)calloc((size_t)len + 1, sizeof(Py_buffer));
  if (pointers == NULL || sizes == NULL || views == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    SWIG_fail;
  }
  for (i = 0; i < len; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    if (item == Py_None) continue;
    if (PyObject_GetBuffer(item, &views[held], PyBUF_C_CONTIGUOUS) != 0) {
      Py_DECREF(fast);
      SWIG_fail;
    }
    pointers[i] = views[held].buf;
    sizes[i] = (size_t)views[held].len;
    ++held;
  }
  Py_DECREF(fast);
  $1 = ($1_ltype)pointers;
  $2 = sizes;
  $3 = (size_t)len;
}
%typemap(freearg) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                   size_t TESS_LIST_LEN) {
  Py_ssize_t i;
  for (i = 0; i < held$argnum; ++i) PyBuffer_Release(&views$argnum[i]);
  free(views$argnum);
  free(sizes$argnum);
  free(pointers$argnum);
}

%typemap(in) const int64_t* TESS_OPT_SHAPE (int64_t* array = NULL, size_t n = 0) {
  if ($input != Py_None && !tess_py_int64_array($input, &array, &n)) SWIG_fail;
  $1 = array;
}
%typemap(freearg) const int64_t* TESS_OPT_SHAPE { free(array$argnum); }

/* --- tess_op_call_apply ------------------------------------------------------------------ */
/* 16: more outputs than any registered op has (the C API would say if one had more). */
%typemap(in, numinputs=0) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs)
    (tess_tensor* handles[16], size_t count = 0) {
  $1 = handles;
  $2 = 16;
  $3 = &count;
}
%typemap(argout) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) {
  PyObject* tuple = PyTuple_New((Py_ssize_t)count$argnum);
  size_t i;
  if (tuple == NULL) SWIG_fail;
  for (i = 0; i < count$argnum; ++i) {
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i,
                     SWIG_NewPointerObj(SWIG_as_voidptr(handles$argnum[i]),
                                        $descriptor(tess_tensor*), SWIG_POINTER_OWN));
  }
  $result = tess_py_append($result, tuple);
}

%typemap(in) (const tess_tensor* const* inputs, size_t num_inputs) (tess_tensor** array = NULL) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of Tensors");
  Py_ssize_t i, len;
  if (fast == NULL) SWIG_fail;
  len = PySequence_Fast_GET_SIZE(fast);
  array = (tess_tensor**)malloc(sizeof(tess_tensor*) * (size_t)(len > 0 ? len : 1));
  if (array == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    SWIG_fail;
  }
  for (i = 0; i < len; ++i) {
    void* ptr = NULL;
    if (!SWIG_IsOK(SWIG_ConvertPtr(PySequence_Fast_GET_ITEM(fast, i), &ptr,
                                   $descriptor(tess_tensor*), 0))) {
      Py_DECREF(fast);
      PyErr_Format(PyExc_TypeError, "input %zd is not a Tensor", i);
      SWIG_fail;
    }
    array[i] = (tess_tensor*)ptr;
  }
  Py_DECREF(fast);
  $1 = ($1_ltype)array;
  $2 = (size_t)len;
}
%typemap(freearg) (const tess_tensor* const* inputs, size_t num_inputs) { free(array$argnum); }

