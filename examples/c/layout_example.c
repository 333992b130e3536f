/*
 * Prints, on every rank, the local slice it would hold of a (6, 5) tensor placed
 * on cpu:[[0,1],[2,3]] with nd-sbp (S(0), S(1)).
 *
 *   mpirun -np 4 bazel-bin/examples/c/layout_example
 *
 * A rank outside the placement (with -np 5 or more) says so instead.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/tessera.h"

static int check(tess_status status, const char* what) {
  if (status == TESS_OK) return 0;
  fprintf(stderr, "%s failed: %s: %s\n", what, tess_status_string(status),
          tess_last_error_message());
  return 1;
}

int main(void) {
  const int64_t shape[2] = {6, 5};
  tess_placement* placement = NULL;
  tess_nd_sbp* nd_sbp = NULL;
  tess_layout* layout = NULL;
  int32_t rank = 0;
  int32_t size = 0;
  int32_t held = 0;
  const int64_t* local_dims = NULL; /* borrowed from the layout */
  size_t local_ndim = 0;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  int64_t col_begin = 0;
  int64_t col_end = 0;
  int failed = 0;

  if (check(tess_runtime_init(), "tess_runtime_init")) return EXIT_FAILURE;
  failed = check(tess_runtime_world_rank(&rank), "tess_runtime_world_rank") ||
           check(tess_runtime_world_size(&size), "tess_runtime_world_size") ||
           check(tess_placement_parse(&placement, "cpu:[[0,1],[2,3]]"), "tess_placement_parse") ||
           check(tess_nd_sbp_parse(&nd_sbp, "(S(0), S(1))"), "tess_nd_sbp_parse") ||
           check(tess_placement_contains(&held, placement, rank), "tess_placement_contains");
  if (!failed && !held) {
    printf("rank %d of %d: not in %s, holds nothing\n", (int)rank, (int)size,
           tess_placement_string(placement));
  } else if (!failed) {
    failed = check(tess_layout_create(&layout, placement, nd_sbp, shape, 2, rank),
                   "tess_layout_create") ||
             check(tess_layout_local_shape(&local_dims, &local_ndim, layout),
                   "tess_layout_local_shape") ||
             check(tess_layout_range(&row_begin, &row_end, layout, 0), "tess_layout_range") ||
             check(tess_layout_range(&col_begin, &col_end, layout, 1), "tess_layout_range");
    if (!failed) {
      printf(
          "rank %d of %d: local shape (%lld, %lld) = rows [%lld, %lld) x cols [%lld, %lld) of "
          "(6, 5) under %s on %s\n",
          (int)rank, (int)size, (long long)local_dims[0], (long long)local_dims[1],
          (long long)row_begin, (long long)row_end, (long long)col_begin, (long long)col_end,
          tess_nd_sbp_string(nd_sbp), tess_placement_string(placement));
    }
  }
  tess_layout_destroy(layout);
  tess_nd_sbp_destroy(nd_sbp);
  tess_placement_destroy(placement);
  failed = check(tess_runtime_finalize(), "tess_runtime_finalize") || failed;
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
