/* Tessera's C API from another Bazel workspace: (x + y) * 2 on a world of one rank,
 * checked element by element against the same arithmetic in plain C. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "tessera/tessera.h"

#define N 6

int main(void) {
  const int64_t shape[1] = {N};
  float x[N];
  float y[N];
  float got[N];
  tess_placement* world = NULL;
  tess_nd_sbp* broadcast = NULL;
  tess_tensor* tx = NULL;
  tess_tensor* ty = NULL;
  tess_tensor* sum = NULL;
  tess_tensor* out = NULL;
  int failed = 0;
  int i;

  for (i = 0; i < N; ++i) {
    x[i] = 0.5f * (float)i - 1.0f;
    y[i] = (float)(i * i) * 0.25f;
  }
  if (check(tess_runtime_init(), "tess_runtime_init")) return EXIT_FAILURE;
  failed = check(tess_placement_parse(&world, "cpu:[0]"), "tess_placement_parse") ||
           check(tess_nd_sbp_parse(&broadcast, "B"), "tess_nd_sbp_parse") ||
           check(tess_tensor_from_host(&tx, x, shape, 1, TESS_DTYPE_F32, world, broadcast),
                 "tess_tensor_from_host x") ||
           check(tess_tensor_from_host(&ty, y, shape, 1, TESS_DTYPE_F32, world, broadcast),
                 "tess_tensor_from_host y") ||
           check(tess_add(&sum, tx, ty), "tess_add") ||
           check(tess_scalar_mul(&out, sum, 2.0), "tess_scalar_mul") ||
           check(tess_tensor_to_host(got, sizeof got, out), "tess_tensor_to_host");
  for (i = 0; !failed && i < N; ++i) {
    /* Multiples of 1/4: exact in float. */
    const float want = (x[i] + y[i]) * 2.0f;
    if (got[i] != want) {
      fprintf(stderr, "element %d: got %g, want %g\n", i, (double)got[i], (double)want);
      failed = 1;
    }
  }
  if (!failed) printf("capi_test: (x + y) * 2 = %s\n", tess_tensor_string(out));
  tess_tensor_destroy(out);
  tess_tensor_destroy(sum);
  tess_tensor_destroy(ty);
  tess_tensor_destroy(tx);
  tess_nd_sbp_destroy(broadcast);
  tess_placement_destroy(world);
  failed = check(tess_runtime_finalize(), "tess_runtime_finalize") || failed;
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
