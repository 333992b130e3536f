/* Java section of bindings/tessera.i: the calling convention as Java sees it.
 *
 * swig -java -package org.tessera -module Tessera: the module class org.tessera.Tessera
 * holds the raw functions (package-private, snake_case) plus the public statics
 * below; Placement, NdSbp and Layout are the handle classes.
 *
 * - A failing tess_status throws org.tessera.TesseraException(code, message) from
 *   the JNI wrapper itself, with tess_last_error_message() read in that same native
 *   call. Raw functions return void.
 * - Out-params are one-element arrays the wrapper fills on success: handles as
 *   Placement[] (etc.; owned by the caller), int32_t as int[], int64_t/size_t/uint64_t
 *   as long[] (uint64_t keeps its bits), double as double[].
 * - (const int64_t*, size_t) takes long[], (const int32_t*, size_t) takes int[], and
 *   tess_nd_sbp_create's (kinds, split_axes, num_axes) takes int[] pairs
 *   {kind0, split0, kind1, split1, ...}. A null array is passed on as NULL.
 * - Handles are AutoCloseable: close() calls tess_x_destroy once; later calls pass
 *   NULL, which the C API rejects with INVALID_ARGUMENT. No finalizers.
 * - Host buffers are direct java.nio.ByteBuffers, read or written from their start
 *   (the position is ignored): TESS_IN_BUFFER and TESS_INOUT_BUFFER may be null;
 *   TESS_OUT_BUFFER's capacity is the byte count, and so is TESS_IN_BUFFER's when
 *   paired with TESS_IN_BYTES; TESS_BUFFER_LIST is a ByteBuffer[] (null elements
 *   allowed), and so is TESS_IN_BUFFER_LIST, each capacity its byte count (a null
 *   element: NULL, 0 bytes). TESS_OPT_SHAPE is a long[] or null.
 * - tess_apply takes long[] handles (Tensor.getCPtr) for its inputs and a long[]
 *   whose length is the capacity for its outputs, filled from index 0 (the rest
 *   stay 0).
 */

%{
/* Throws TesseraException(code, tess_last_error_message()) into `jenv`. */
static void tess_java_throw(JNIEnv* jenv, tess_status code) {
  const char* message = tess_last_error_message();
  jclass cls = (*jenv)->FindClass(jenv, "org/tessera/TesseraException");
  jmethodID ctor;
  jstring jmessage;
  jobject exc;
  if (cls == NULL) return; /* NoClassDefFoundError is pending */
  ctor = (*jenv)->GetMethodID(jenv, cls, "<init>", "(ILjava/lang/String;)V");
  if (ctor == NULL) return;
  jmessage = (*jenv)->NewStringUTF(jenv, message);
  if (jmessage == NULL) return;
  exc = (*jenv)->NewObject(jenv, cls, ctor, (jint)code, jmessage);
  if (exc != NULL) (*jenv)->Throw(jenv, (jthrowable)exc);
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

/* --- Module class -------------------------------------------------------------- */
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    System.loadLibrary("tessera_jni");
  }
%}
/* Raw functions stay package-private; the idiomatic API is public. */
%javamethodmodifiers "";
%javamethodmodifiers tess_version "public";
%javamethodmodifiers tess_init "public";
%javamethodmodifiers tess_finalize "public";
%pragma(java) modulecode=%{
  static {
    // Idempotent; without mpirun the process is a world of one rank.
    init();
    if (version_number() != VERSION_NUMBER) {
      throw new IllegalStateException("tessera: bindings built for " + VERSION_NUMBER
          + " but the library is " + version());
    }
  }

  /** TESS_VERSION_NUMBER of the loaded library (MAJOR * 10000 + MINOR * 100 + PATCH). */
  public static int versionNumber() {
    return version_number();
  }

  /** "INVALID_ARGUMENT" etc.; "UNKNOWN_CODE" for other values. */
  public static String statusString(int code) {
    return status_string(code);
  }

  /** This process's rank in the world. */
  public static int worldRank() {
    int[] out = {0};
    world_rank(out);
    return out[0];
  }

  /** Number of ranks in the world. */
  public static int worldSize() {
    int[] out = {0};
    world_size(out);
    return out[0];
  }

  /** What CUDA this process has: see {@link #cudaInfo}. */
  public static final class CudaInfo {
    /** The library was built with CUDA (--config=cuda). */
    public final boolean builtWithCuda;
    /** CUDA devices visible to this process (0 without a CUDA build or a GPU). */
    public final int deviceCount;

    CudaInfo(boolean builtWithCuda, int deviceCount) {
      this.builtWithCuda = builtWithCuda;
      this.deviceCount = deviceCount;
    }

    @Override
    public String toString() {
      return "CudaInfo(builtWithCuda=" + builtWithCuda + ", deviceCount=" + deviceCount + ")";
    }
  }

  /**
   * Whether cuda placements can hold tensors here: without a CUDA build their tensor
   * calls throw UNIMPLEMENTED, with one but no device UNAVAILABLE. Local.
   */
  public static CudaInfo cudaInfo() {
    int[] built = {0};
    int[] count = {0};
    cuda_info(built, count);
    return new CudaInfo(built[0] != 0, count[0]);
  }

  /** Parses a dtype name ("f32", "f64", "i32", "i64", "f16", "bf16") into DTYPE_*. */
  public static int dtypeParse(String text) {
    int[] out = {0};
    dtype_parse(out, text);
    return out[0];
  }

  /** The name of a DTYPE_* value; "" for an unknown one. */
  public static String dtypeName(int dtype) {
    return dtype_name(dtype);
  }

  /** The registered ops' names, sorted. */
  public static String[] opNames() {
    String[] names = new String[(int) op_count()];
    for (int i = 0; i < names.length; ++i) names[i] = op_name(i);
    return names;
  }

  /** The calling thread's inference-cache counters. */
  public static final class InferCacheStats {
    public final long hits;
    public final long misses;
    public final long evictions;
    public final long size;
    public final long capacity;

    InferCacheStats(long hits, long misses, long evictions, long size, long capacity) {
      this.hits = hits;
      this.misses = misses;
      this.evictions = evictions;
      this.size = size;
      this.capacity = capacity;
    }
  }

  /** The calling thread's inference-cache statistics (the cache is per thread). */
  public static InferCacheStats inferCacheStats() {
    long[] hits = {0}, misses = {0}, evictions = {0}, size = {0}, capacity = {0};
    infer_cache_stats(hits, misses, evictions, size, capacity);
    return new InferCacheStats(hits[0], misses[0], evictions[0], size[0], capacity[0]);
  }

  /** Drops every entry of this thread's inference cache and zeroes its counters. */
  public static void inferCacheClear() {
    infer_cache_clear();
  }

  /** Drops every entry (counters kept) and sets the capacity (>= 1). */
  public static void inferCacheSetCapacity(long capacity) {
    infer_cache_set_capacity(capacity);
  }

  /**
   * The full inference record of this thread's last op on tensors (also one that
   * failed); FAILED_PRECONDITION before the thread's first op.
   */
  public static Explanation explainLast() {
    Explanation[] out = {null};
    explain_last(out);
    return out[0];
  }

  /** The layout {@code rank} holds of a tensor of {@code shape}; see Layout.create. */
  public static Layout layout(Placement placement, NdSbp ndSbp, long[] shape, int rank) {
    return Layout.create(placement, ndSbp, shape, rank);
  }
%}
/* With -DSWIGWORDSIZE64 (so int64_t is the C compiler's `long`), SWIG would map
 * int64_t like C long, which Java takes as 32 bits. Map it as 64 bits. */
%apply long long { int64_t };
%apply const long long& { const int64_t& };
/* Seeds keep their 64 bits in a Java long (not BigInteger). */
%apply long long { uint64_t seed };

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
    sizes[i] = (size_t)(*jenv)->GetDirectBufferCapacity(jenv, buffer);
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

/* --- tess_apply ------------------------------------------------------------------ */
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

/* --- Handle classes ------------------------------------------------------------- */
%typemap(javainterfaces) struct tess_placement, struct tess_nd_sbp, struct tess_layout,
    struct tess_op_call, struct tess_infer_result, struct tess_explanation,
    struct tess_tensor, struct tess_boxing_plan, struct tess_bucketed_allreducer,
    struct tess_program, struct tess_plan, struct tess_plan_instance "AutoCloseable"
%typemap(javafinalize) SWIGTYPE ""
%include "java/tessera_java_classes.i"
%include "java/tessera_java_plan.i"
