// Hands tools/tsan.supp to ThreadSanitizer from inside the binary.
//
// TSan calls __tsan_default_suppressions() at start-up if the executable defines it, and
// parses the returned text like a TSAN_OPTIONS=suppressions=<file>: no path has to be
// valid in the test sandbox or in processes that mpirun starts. Linked into every binary
// by `--custom_malloc` in .bazelrc's tsan config.

extern "C" __attribute__((visibility("default"), used)) const char* __tsan_default_suppressions() {
  return
#include "tools/tsan_supp.inc"
      ;
}
