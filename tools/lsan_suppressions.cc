// Hands tools/lsan.supp to LeakSanitizer from inside the binary.
//
// LSan calls __lsan_default_suppressions() at start-up if the executable defines it, and
// parses the returned text like an LSAN_OPTIONS=suppressions=<file>. Compiling the file in
// means no path has to be valid in the test sandbox, under `bazel run`, or in processes that
// mpirun starts. Linked into every binary by `--custom_malloc` in .bazelrc's asan config.

extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_suppressions() {
  return
#include "tools/lsan_supp.inc"
      ;
}
