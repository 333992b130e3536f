/*
 * Tessera C API: what every module header shares (TESS_API).
 *
 * The C API is the stable surface of libtessera.so, one header per module
 * (<tessera/status.h>, <tessera/tensor.h>, ...) and <tessera/tessera.h> including
 * them all.
 *
 * Conventions
 * - Every fallible function returns tess_status (TESS_OK == 0). On failure the
 *   detail is in tess_last_error_message(), out-params are left untouched and
 *   nothing is leaked.
 * - Out-params come first. A handle returned through `T** out` is owned by the
 *   caller and released with the matching *_destroy, which accepts NULL.
 * - Strings returned as `const char*` are borrowed: their lifetime is stated on
 *   each function. All strings are UTF-8 (in practice ASCII).
 * - Thread safety: unless a function says otherwise, distinct handles may be
 *   used from distinct threads at once; one handle may be read (any const
 *   function) from several threads at once. tess_runtime_init/tess_runtime_finalize must not
 *   race with any other call.
 */
#ifndef TESSERA_COMMON_H_
#define TESSERA_COMMON_H_

#if defined(_WIN32)
#define TESS_API __declspec(dllexport)
#else
#define TESS_API __attribute__((visibility("default")))
#endif

#endif /* TESSERA_COMMON_H_ */
