/* Run by tessera_mpi_test on N ranks. Rank r all-reduces (sums) the values
 * (r + 1) * (k + 1), k < 4: every rank must get N (N + 1) / 2 * (k + 1). Then a
 * length-(2N + 1) tensor split over the world (uneven for N > 1) holding 0, 1, ...,
 * 2N is summed: every rank must get N (2N + 1). Exits 0 on every rank or fails. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "tessera/tessera.h"

int main(void) {
  int32_t rank = 0;
  int32_t size = 0;
  double buffer[4];
  double* values = NULL;
  int32_t* ranks = NULL;
  double total = 0.0;
  int64_t length = 0;
  int64_t k;
  tess_placement* world = NULL;
  tess_nd_sbp* split = NULL;
  tess_tensor* tensor = NULL;
  tess_tensor* sum = NULL;
  int failed = 0;

  if (check(tess_runtime_init(), "tess_runtime_init")) return EXIT_FAILURE;
  failed = check(tess_runtime_world_rank(&rank), "tess_runtime_world_rank") ||
           check(tess_runtime_world_size(&size), "tess_runtime_world_size");
  for (k = 0; !failed && k < 4; ++k) buffer[k] = (double)((rank + 1) * (k + 1));
  failed = failed || check(tess_comm_allreduce(buffer, 4, TESS_DTYPE_F64, TESS_REDUCE_SUM, NULL,
                                               TESS_ALLREDUCE_FLAT),
                           "tess_comm_allreduce");
  for (k = 0; !failed && k < 4; ++k) {
    const double want = (double)size * (size + 1) / 2 * (double)(k + 1);
    if (buffer[k] != want) {
      fprintf(stderr, "rank %d: allreduce[%lld] = %g, want %g\n", (int)rank, (long long)k,
              buffer[k], want);
      failed = 1;
    }
  }

  if (!failed) {
    const int64_t hierarchy = size;
    ranks = malloc((size_t)size * sizeof *ranks);
    for (k = 0; ranks != NULL && k < size; ++k) ranks[k] = (int32_t)k;
    length = 2 * (int64_t)size + 1;
    values = malloc((size_t)length * sizeof *values);
    for (k = 0; values != NULL && k < length; ++k) values[k] = (double)k;
    failed =
        ranks == NULL || values == NULL ||
        check(tess_placement_create(&world, TESS_DEVICE_CPU, ranks, (size_t)size, &hierarchy, 1),
              "tess_placement_create") ||
        check(tess_nd_sbp_parse(&split, "S(0)"), "tess_nd_sbp_parse") ||
        check(tess_tensor_from_host(&tensor, values, &length, 1, TESS_DTYPE_F64, world, split),
              "tess_tensor_from_host") ||
        check(tess_reduce_sum(&sum, tensor, NULL, 0, 0), "tess_reduce_sum") ||
        check(tess_tensor_to_host(&total, sizeof total, sum), "tess_tensor_to_host");
  }
  if (!failed && total != (double)size * (2 * size + 1)) {
    fprintf(stderr, "rank %d: sum of 0..%lld = %g, want %g\n", (int)rank, (long long)(length - 1),
            total, (double)size * (2 * size + 1));
    failed = 1;
  }
  if (!failed) {
    printf("rank %d of %d: allreduce and split sum ok (%g)\n", (int)rank, (int)size, total);
  }
  free(values);
  free(ranks);
  tess_tensor_destroy(sum);
  tess_tensor_destroy(tensor);
  tess_nd_sbp_destroy(split);
  tess_placement_destroy(world);
  failed = check(tess_runtime_finalize(), "tess_runtime_finalize") || failed;
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
