// LeakSanitizer's slow unwinder for binaries that initialise MPI (linked in through
// //core/comm:mpi_world), compiled only into sanitizer builds.
//
// The leak suppressions (tools/lsan.supp) name Open MPI's libraries, whose code has no
// frame pointers: the default frame-pointer unwinder stops the allocation stack at the
// first such frame, before one that names the library, so those leaks would go
// unsuppressed. The slow (DWARF) unwinder walks the whole stack, at 15-40x the cost of
// each allocation; binaries without MPI keep the fast one. LSAN_OPTIONS in the
// environment overrides this default (tests/comm/mpirun_test.sh turns leak checking off
// for multi-rank runs and takes the fast unwinder back).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_LSAN_MPI_UNWINDER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_LSAN_MPI_UNWINDER 1
#endif

#ifdef TESSERA_LSAN_MPI_UNWINDER
// Looked up in the executable itself (libasan's own weak default comes first in a
// shared library's lookup), hence a static, always-linked library.
extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_options() {
  return "fast_unwind_on_malloc=0";
}
#endif
