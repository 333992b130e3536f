/* Java section of bindings/tessera.i: the raw JNI layer.
 *
 * swig -java -package org.tessera -module Tessera (without -nopgcpp: SWIG's
 * "premature garbage collection prevention" parameters are wanted). Of SWIG's output
 * only the intermediary class org.tessera.TesseraJNI (package-private: one static
 * native method per C function, snake_case, tess_ stripped) and the C wrapper are
 * used; the module and proxy classes SWIG also writes are discarded. The public API is
 * hand-written Java under src/org/tessera/ (Tessera, Placement, ..., Tensor, Plan,
 * ...), whose handle classes hold the C pointers and pass each as a (long pointer,
 * object) pair, the object keeping the handle reachable during the native call.
 *
 * - A failing tess_status throws TesseraException.of(code, message) (the subclass of
 *   the code: InvalidArgumentException, ...) from the JNI wrapper itself, with
 *   tess_last_error_message() read in that same native call. Raw functions return
 *   void.
 * - Out-params are one-element arrays the wrapper fills on success: handles as long[]
 *   (the new pointer, owned by the caller), int32_t as int[], int64_t/size_t/uint64_t
 *   as long[] (uint64_t keeps its bits), double as double[].
 * - Borrowed shapes, (const int64_t** out_dims, size_t* out_ndim), take a long[][]
 *   holder whose element 0 receives a new long[] copy of the dims.
 * - (const int64_t*, size_t) takes long[], (const int32_t*, size_t) takes int[], and
 *   tess_nd_sbp_create's (kinds, split_axes, num_axes) takes int[] pairs
 *   {kind0, split0, kind1, split1, ...}. A null array is passed on as NULL.
 * - Handles: delete_X(long) (tess_x_destroy) frees one; the Java classes call it once,
 *   from close() or their Cleaner (src/org/tessera/Handle.java).
 * - Host buffers are direct java.nio.ByteBuffers, read or written from their start
 *   (the position is ignored): TESS_IN_BUFFER and TESS_INOUT_BUFFER may be null;
 *   TESS_OUT_BUFFER's capacity is the byte count, and so is TESS_IN_BUFFER's when
 *   paired with TESS_IN_BYTES; TESS_BUFFER_LIST is a ByteBuffer[] (null elements
 *   allowed), and so is TESS_IN_BUFFER_LIST, each capacity its byte count (a null
 *   element: NULL, 0 bytes). TESS_OPT_SHAPE is a long[] or null.
 * - tess_op_call_apply takes long[] handles for its inputs and a long[] whose length is the
 *   capacity for its outputs, filled from index 0 (the rest stay 0).
 * - Loading TesseraJNI loads libtessera_jni.so (NativeLoader: -Dtessera.library.path,
 *   java.library.path, else the jar's native/<os>-<arch>/ copy) and initialises nothing: the Java
 *   layer calls tess_runtime_init on first need (Tessera.init()).
 */

%{
/* Throws TesseraException.of(code, tess_last_error_message()) (the code's subclass)
 * into `jenv`. */
static void tess_java_throw(JNIEnv* jenv, tess_status code) {
  const char* message = tess_last_error_message();
  jclass cls = (*jenv)->FindClass(jenv, "org/tessera/TesseraException");
  jmethodID of;
  jstring jmessage;
  jobject exc;
  if (cls == NULL) return; /* NoClassDefFoundError is pending */
  of = (*jenv)->GetStaticMethodID(jenv, cls, "of",
                                  "(ILjava/lang/String;)Lorg/tessera/TesseraException;");
  if (of == NULL) return;
  jmessage = (*jenv)->NewStringUTF(jenv, message);
  if (jmessage == NULL) return;
  exc = (*jenv)->CallStaticObjectMethod(jenv, cls, of, (jint)code, jmessage);
  if (exc != NULL && !(*jenv)->ExceptionCheck(jenv)) (*jenv)->Throw(jenv, (jthrowable)exc);
  (*jenv)->DeleteLocalRef(jenv, jmessage);
  (*jenv)->DeleteLocalRef(jenv, cls);
}

/* Out arrays must hold at least one element. */
static int tess_java_check_out(JNIEnv* jenv, jarray array) {
  if (array == NULL || (*jenv)->GetArrayLength(jenv, array) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "out-param array must have at least one element");
    return 0;
  }
  return 1;
}
%}

/* --- The raw class ------------------------------------------------------------- */
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }

  private TesseraJNI() {}
%}
/* With -DSWIGWORDSIZE64 (so int64_t is the C compiler's `long`), SWIG would map
 * int64_t like C long, which Java takes as 32 bits. Map it as 64 bits. */
%apply long long { int64_t };
%apply const long long& { const int64_t& };
/* Seeds keep their 64 bits in a Java long (not BigInteger). */
%apply long long { uint64_t seed };

/* The jstype/javain/javaout typemaps below shape only the discarded module class; the
 * jni/jtype and C typemaps define TesseraJNI and the wrapper. */

/* --- Status -------------------------------------------------------------------- */
%typemap(jni) tess_status "void"
%typemap(jtype) tess_status "void"
%typemap(jstype) tess_status "void"
%typemap(javaout) tess_status { $jnicall; }
/* Thrown in "ret", after argout and freearg, so that arrays pinned or allocated by
 * the argument typemaps are released on failure too (and no JNI call but the
 * return happens with the exception pending). */
%typemap(out) tess_status ""
%typemap(ret) tess_status {
  if ($1 != TESS_OK) tess_java_throw(jenv, $1);
}
/* tess_status_string takes a code, not a result. */
%apply int32_t { tess_status status };

/* --- Handle out-params ----------------------------------------------------------- */
%typemap(jni) SWIGTYPE** "jlongArray"
%typemap(jtype) SWIGTYPE** "long[]"
%typemap(jstype) SWIGTYPE** "$*javaclassname[]"
%typemap(javain,
         pre="    long[] handle$javainput = {0};",
         post="      $javainput[0] = handle$javainput[0] == 0 ? null : new $*javaclassname(handle$javainput[0], true);")
    SWIGTYPE** "handle$javainput"
%typemap(in) SWIGTYPE** ($*1_ltype handle = NULL) {
  if (!tess_java_check_out(jenv, $input)) return $null;
  $1 = &handle;
}
%typemap(argout) SWIGTYPE** {
  jlong value = 0;
  *($*1_ltype*)&value = handle$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &value);
}

/* --- Scalar out-params ----------------------------------------------------------- */
%define TESS_JAVA_OUT(CTYPE, JARRAY, JNIARRAY, JELEM, SETREGION)
%typemap(jni) CTYPE* TESS_OUT JNIARRAY
%typemap(jtype) CTYPE* TESS_OUT JARRAY
%typemap(jstype) CTYPE* TESS_OUT JARRAY
%typemap(javain) CTYPE* TESS_OUT "$javainput"
%typemap(in) CTYPE* TESS_OUT (CTYPE value = 0) {
  if (!tess_java_check_out(jenv, $input)) return $null;
  $1 = &value;
}
%typemap(argout) CTYPE* TESS_OUT {
  JELEM element = (JELEM)value$argnum;
  (*jenv)->SETREGION(jenv, $input, 0, 1, &element);
}
%enddef
TESS_JAVA_OUT(int32_t, "int[]", "jintArray", jint, SetIntArrayRegion)
TESS_JAVA_OUT(int64_t, "long[]", "jlongArray", jlong, SetLongArrayRegion)
TESS_JAVA_OUT(uint64_t, "long[]", "jlongArray", jlong, SetLongArrayRegion)
TESS_JAVA_OUT(size_t, "long[]", "jlongArray", jlong, SetLongArrayRegion)
TESS_JAVA_OUT(double, "double[]", "jdoubleArray", jdouble, SetDoubleArrayRegion)

/* --- Borrowed shapes --------------------------------------------------------------
 * (const int64_t** out_dims, size_t* out_ndim) takes one long[][] holder: element 0
 * receives a new long[] of the dims, copied inside the JNI call while the handle that
 * lent them is alive (a borrowed pointer never reaches Java). On failure element 0 is
 * left as it was and the status throws. */
%typemap(jni) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "jobjectArray"
%typemap(jtype) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "long[][]"
%typemap(jstype) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "long[][]"
%typemap(javain) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "$javainput"
%typemap(in) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM)
    (const int64_t* dims = NULL, size_t ndim = 0) {
  if (!tess_java_check_out(jenv, (jarray)$input)) return $null;
  $1 = ($1_ltype)&dims; /* SWIG declares $1 without the inner const */
  $2 = &ndim;
}
%typemap(argout) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) {
  if (dims$argnum != NULL) {
    jlongArray shape = (*jenv)->NewLongArray(jenv, (jsize)ndim$argnum);
    if (shape == NULL) return $null; /* OutOfMemoryError is pending */
    if (ndim$argnum > 0) {
      (*jenv)->SetLongArrayRegion(jenv, shape, 0, (jsize)ndim$argnum,
                                  (const jlong*)dims$argnum);
    }
    (*jenv)->SetObjectArrayElement(jenv, $input, 0, shape);
    (*jenv)->DeleteLocalRef(jenv, shape);
  }
}

/* --- Array inputs ---------------------------------------------------------------- */
%define TESS_JAVA_ARRAY(CTYPE, JARRAY, JNIARRAY, JELEM, GETELEMENTS, RELEASEELEMENTS)
%typemap(jni) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) JNIARRAY
%typemap(jtype) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) JARRAY
%typemap(jstype) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) JARRAY
%typemap(javain) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) "$javainput"
%typemap(in) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) {
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = (CTYPE*)(*jenv)->GETELEMENTS(jenv, $input, NULL);
    if ($1 == NULL) return $null; /* OutOfMemoryError is pending */
  }
}
%typemap(freearg) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) {
  if ($1 != NULL) (*jenv)->RELEASEELEMENTS(jenv, $input, (JELEM*)$1, JNI_ABORT);
}
%enddef
TESS_JAVA_ARRAY(int32_t, "int[]", "jintArray", jint, GetIntArrayElements, ReleaseIntArrayElements)
TESS_JAVA_ARRAY(int64_t, "long[]", "jlongArray", jlong, GetLongArrayElements,
                ReleaseLongArrayElements)

/* {kind0, split0, kind1, split1, ...} for tess_nd_sbp_create. */
%typemap(jni) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) "jintArray"
%typemap(jtype) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) "int[]"
%typemap(jstype) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) "int[]"
%typemap(javain) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) "$javainput"
%typemap(in) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes)
    (int32_t* kinds = NULL, int32_t* axes = NULL) {
  jsize len, i;
  jint* pairs;
  if ($input == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "sbp pairs are null");
    return $null;
  }
  len = (*jenv)->GetArrayLength(jenv, $input);
  if (len % 2 != 0) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "sbp pairs must be {kind, splitAxis, ...}: odd length");
    return $null;
  }
  pairs = (*jenv)->GetIntArrayElements(jenv, $input, NULL);
  if (pairs == NULL) return $null;
  kinds = (int32_t*)malloc(sizeof(int32_t) * (size_t)(len / 2 + 1));
  axes = (int32_t*)malloc(sizeof(int32_t) * (size_t)(len / 2 + 1));
  for (i = 0; kinds != NULL && axes != NULL && i < len / 2; ++i) {
    kinds[i] = pairs[2 * i];
    axes[i] = pairs[2 * i + 1];
  }
  (*jenv)->ReleaseIntArrayElements(jenv, $input, pairs, JNI_ABORT);
  if (kinds == NULL || axes == NULL) {
    free(kinds);
    free(axes);
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "sbp pairs");
    return $null;
  }
  $1 = kinds;
  $2 = axes;
  $3 = (size_t)(len / 2);
}
%typemap(freearg) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) {
  free(kinds$argnum);
  free(axes$argnum);
}

/* --- Host buffers ------------------------------------------------------------------ */
%{
/* The address of direct buffer `buffer`, or NULL with IllegalArgumentException
 * pending when it is not direct. */
static void* tess_java_buffer_address(JNIEnv* jenv, jobject buffer) {
  void* address = (*jenv)->GetDirectBufferAddress(jenv, buffer);
  if (address == NULL && (*jenv)->GetDirectBufferCapacity(jenv, buffer) != 0) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "host buffers must be direct ByteBuffers");
  }
  return address;
}
%}
%typemap(jni) const void* TESS_IN_BUFFER "jobject"
%typemap(jtype) const void* TESS_IN_BUFFER "java.nio.ByteBuffer"
%typemap(jstype) const void* TESS_IN_BUFFER "java.nio.ByteBuffer"
%typemap(javain) const void* TESS_IN_BUFFER "$javainput"
%typemap(in) const void* TESS_IN_BUFFER {
  $1 = NULL;
  if ($input != NULL) {
    $1 = tess_java_buffer_address(jenv, $input);
    if ((*jenv)->ExceptionCheck(jenv)) return $null;
  }
}

%typemap(jni) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) "jobject"
%typemap(jtype) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) "java.nio.ByteBuffer"
%typemap(jstype) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) "java.nio.ByteBuffer"
%typemap(javain) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) "$javainput"
%typemap(in) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) {
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    $1 = tess_java_buffer_address(jenv, $input);
    if ((*jenv)->ExceptionCheck(jenv)) return $null;
    $2 = (size_t)(*jenv)->GetDirectBufferCapacity(jenv, $input);
  }
}

%typemap(jni) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) "jobject"
%typemap(jtype) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) "java.nio.ByteBuffer"
%typemap(jstype) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) "java.nio.ByteBuffer"
%typemap(javain) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) "$javainput"
%typemap(in) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) {
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    $1 = tess_java_buffer_address(jenv, $input);
    if ((*jenv)->ExceptionCheck(jenv)) return $null;
    $2 = (size_t)(*jenv)->GetDirectBufferCapacity(jenv, $input);
  }
}

%typemap(jni) void* TESS_INOUT_BUFFER "jobject"
%typemap(jtype) void* TESS_INOUT_BUFFER "java.nio.ByteBuffer"
%typemap(jstype) void* TESS_INOUT_BUFFER "java.nio.ByteBuffer"
%typemap(javain) void* TESS_INOUT_BUFFER "$javainput"
%typemap(in) void* TESS_INOUT_BUFFER {
  $1 = NULL;
  if ($input != NULL) {
    $1 = tess_java_buffer_address(jenv, $input);
    if ((*jenv)->ExceptionCheck(jenv)) return $null;
  }
}

/* ByteBuffer[] of direct buffers (null elements pass NULL); direct buffers do not
 * move, so their addresses hold for the call. */
%typemap(jni) void* const* TESS_BUFFER_LIST "jobjectArray"
%typemap(jtype) void* const* TESS_BUFFER_LIST "java.nio.ByteBuffer[]"
%typemap(jstype) void* const* TESS_BUFFER_LIST "java.nio.ByteBuffer[]"
%typemap(javain) void* const* TESS_BUFFER_LIST "$javainput"
%typemap(in) void* const* TESS_BUFFER_LIST (void** pointers = NULL) {
  jsize len = 0, i;
  if ($input != NULL) len = (*jenv)->GetArrayLength(jenv, $input);
  pointers = (void**)calloc((size_t)len + 1, sizeof(void*));
  if (pointers == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "buffers");
    return $null;
  }
  for (i = 0; i < len; ++i) {
    jobject buffer = (*jenv)->GetObjectArrayElement(jenv, $input, i);
    if (buffer == NULL) continue;
    pointers[i] = tess_java_buffer_address(jenv, buffer);
    (*jenv)->DeleteLocalRef(jenv, buffer);
    if ((*jenv)->ExceptionCheck(jenv)) {
      free(pointers);
      return $null;
    }
  }
  $1 = $input != NULL ? pointers : NULL;
}
%typemap(freearg) void* const* TESS_BUFFER_LIST { free(pointers$argnum); }

/* ByteBuffer[] of direct buffers read in full: each capacity is its byte count; a null
 * element passes (NULL, 0), which the C API accepts only for an empty piece. */
%typemap(jni) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
               size_t TESS_LIST_LEN) "jobjectArray"
%typemap(jtype) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                 size_t TESS_LIST_LEN) "java.nio.ByteBuffer[]"
%typemap(jstype) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                  size_t TESS_LIST_LEN) "java.nio.ByteBuffer[]"
%typemap(javain) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                  size_t TESS_LIST_LEN) "$javainput"
%typemap(in) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
              size_t TESS_LIST_LEN) (const void** pointers = NULL, size_t* sizes = NULL) {
  jsize len = 0, i;
  if ($input != NULL) len = (*jenv)->GetArrayLength(jenv, $input);
  pointers = (const void**)calloc((size_t)len + 1, sizeof(void*));
  sizes = (size_t*)calloc((size_t)len + 1, sizeof(size_t));
  if (pointers == NULL || sizes == NULL) {
    free((void*)pointers);
    free(sizes);
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "buffers");
    return $null;
  }
  for (i = 0; i < len; ++i) {
    jobject buffer = (*jenv)->GetObjectArrayElement(jenv, $input, i);
    if (buffer == NULL) continue;
    pointers[i] = tess_java_buffer_address(jenv, buffer);
    /* No JNI call but DeleteLocalRef with an exception pending (-Xcheck:jni). */
    if (!(*jenv)->ExceptionCheck(jenv)) {
      sizes[i] = (size_t)(*jenv)->GetDirectBufferCapacity(jenv, buffer);
    }
    (*jenv)->DeleteLocalRef(jenv, buffer);
    if ((*jenv)->ExceptionCheck(jenv)) {
      free((void*)pointers);
      free(sizes);
      return $null;
    }
  }
  $1 = ($1_ltype)($input != NULL ? pointers : NULL);
  $2 = ($2_ltype)($input != NULL ? sizes : NULL);
  $3 = (size_t)len;
}
%typemap(freearg) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                   size_t TESS_LIST_LEN) {
  free((void*)pointers$argnum);
  free(sizes$argnum);
}

%typemap(jni) const int64_t* TESS_OPT_SHAPE "jlongArray"
%typemap(jtype) const int64_t* TESS_OPT_SHAPE "long[]"
%typemap(jstype) const int64_t* TESS_OPT_SHAPE "long[]"
%typemap(javain) const int64_t* TESS_OPT_SHAPE "$javainput"
%typemap(in) const int64_t* TESS_OPT_SHAPE {
  $1 = NULL;
  if ($input != NULL) {
    $1 = (int64_t*)(*jenv)->GetLongArrayElements(jenv, $input, NULL);
    if ($1 == NULL) return $null;
  }
}
%typemap(freearg) const int64_t* TESS_OPT_SHAPE {
  if ($1 != NULL) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong*)$1, JNI_ABORT);
}

/* --- tess_op_call_apply ------------------------------------------------------------------ */
%typemap(jni) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) "jlongArray"
%typemap(jtype) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) "long[]"
%typemap(jstype) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) "long[]"
%typemap(javain) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) "$javainput"
%typemap(in) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs)
    (tess_tensor** handles = NULL, size_t count = 0) {
  jsize capacity;
  if ($input == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "outputs array is null");
    return $null;
  }
  capacity = (*jenv)->GetArrayLength(jenv, $input);
  handles = (tess_tensor**)calloc((size_t)capacity + 1, sizeof(tess_tensor*));
  if (handles == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "outputs");
    return $null;
  }
  $1 = handles;
  $2 = (size_t)capacity;
  $3 = &count;
}
%typemap(argout) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) {
  size_t i;
  for (i = 0; i < count$argnum; ++i) {
    jlong value = 0;
    *(tess_tensor**)&value = handles$argnum[i];
    (*jenv)->SetLongArrayRegion(jenv, $input, (jsize)i, 1, &value);
  }
}
%typemap(freearg) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) {
  free(handles$argnum);
}

%typemap(jni) (const tess_tensor* const* inputs, size_t num_inputs) "jlongArray"
%typemap(jtype) (const tess_tensor* const* inputs, size_t num_inputs) "long[]"
%typemap(jstype) (const tess_tensor* const* inputs, size_t num_inputs) "long[]"
%typemap(javain) (const tess_tensor* const* inputs, size_t num_inputs) "$javainput"
%typemap(in) (const tess_tensor* const* inputs, size_t num_inputs)
    (tess_tensor** array = NULL) {
  jsize len, i;
  jlong* ptrs;
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    len = (*jenv)->GetArrayLength(jenv, $input);
    ptrs = (*jenv)->GetLongArrayElements(jenv, $input, NULL);
    if (ptrs == NULL) return $null;
    array = (tess_tensor**)malloc(sizeof(tess_tensor*) * ((size_t)len + 1));
    for (i = 0; array != NULL && i < len; ++i) array[i] = *(tess_tensor**)&ptrs[i];
    (*jenv)->ReleaseLongArrayElements(jenv, $input, ptrs, JNI_ABORT);
    if (array == NULL) {
      SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "inputs");
      return $null;
    }
    $1 = ($1_ltype)array;
    $2 = (size_t)len;
  }
}
%typemap(freearg) (const tess_tensor* const* inputs, size_t num_inputs) { free(array$argnum); }

/* --- Handle classes ------------------------------------------------------------
 * SWIG's proxy classes are discarded (the hand-written ones in src/org/tessera/ take
 * their names); only their destructors, TesseraJNI.delete_X, are used. */
%typemap(javafinalize) SWIGTYPE ""
