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
 * - Thread safety (docs/c-api.md, "Threads"): unless a function says otherwise,
 *   distinct handles may be used from distinct threads at once; one handle may be
 *   read (any const function) from several threads at once. tess_runtime_init and
 *   tess_runtime_finalize must not race with any other call.
 *   Collective calls (tensor creation, tess_tensor_to_global, tess_tensor_to_host,
 *   ops, tess_boxing_run, plan runs, tess_comm_*) may come from several threads at
 *   once, also on the same placements and the same (immutable) tensors: each set of
 *   ranks has one communicator, which serialises the calls that reach it (a
 *   per-communicator lock), so concurrent calls never tear each other's state. What
 *   Tessera does NOT do is order them: MPI pairs collectives across ranks by the
 *   order they are issued in, and threads reach the lock in an order that differs
 *   from rank to rank. Calls that communicate over overlapping ranks from different
 *   threads must therefore reach every rank in the same order, and the program makes
 *   it so (one thread per set of ranks, or a lock or turn of its own taken in the
 *   same order on every rank); unordered, they pair up wrongly (wrong values, MPI
 *   errors, or a hang that only a collective timeout ends). Calls over disjoint
 *   ranks need no order between them. The first call on a new set of ranks creates
 *   its communicator, collectively, under the same rule. All of this needs MPI at
 *   MPI_THREAD_MULTIPLE (tess_runtime_init's default).
 */
#ifndef TESSERA_COMMON_H_
#define TESSERA_COMMON_H_

#if defined(_WIN32)
#define TESS_API __declspec(dllexport)
#else
#define TESS_API __attribute__((visibility("default")))
#endif

#endif /* TESSERA_COMMON_H_ */
