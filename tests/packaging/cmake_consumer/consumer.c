/* A user's program built against an installed Tessera (tests/packaging): c = a @ b
 * with a (7, 3) split by rows over every rank and b (3, 2) broadcast, where
 * a[i][j] = i + j and b[j][k] = 2j + k + 1. Prints the versions, each rank's rows of
 * c and, on rank 0, c itself; c_consumer_test.sh checks them against its own math. */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/tessera.h"

#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != TESS_OK) {                                                \
      fprintf(stderr, "%s failed: %s\n", #call, tess_last_error_message()); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

enum { kRows = 7, kInner = 3, kCols = 2 };

int main(void) {
  double a[kRows * kInner], b[kInner * kCols], c[kRows * kCols];
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kInner; ++j) a[i * kInner + j] = i + j;
  for (int j = 0; j < kInner; ++j)
    for (int k = 0; k < kCols; ++k) b[j * kCols + k] = 2 * j + k + 1;

  CHECK(tess_runtime_init());
  int32_t rank = 0, size = 1;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&size));
  char text[32];
  snprintf(text, sizeof(text), "cpu:0-%d", (int)size - 1);
  tess_placement *world;
  tess_nd_sbp *split, *broadcast;
  CHECK(tess_placement_parse(&world, text));
  CHECK(tess_nd_sbp_parse(&split, "S(0)"));
  CHECK(tess_nd_sbp_parse(&broadcast, "B"));

  const int64_t a_shape[] = {kRows, kInner}, b_shape[] = {kInner, kCols};
  tess_tensor *ta, *tb, *tc;
  CHECK(tess_tensor_from_host(&ta, a, a_shape, 2, TESS_DTYPE_F64, world, split));
  CHECK(tess_tensor_from_host(&tb, b, b_shape, 2, TESS_DTYPE_F64, world, broadcast));
  CHECK(tess_matmul(&tc, ta, tb, 0, 0));
  const int64_t *local_dims; /* borrowed from tc */
  size_t local_ndim;
  CHECK(tess_tensor_local_shape(&local_dims, &local_ndim, tc));
  const long long local_rows = (long long)local_dims[0];
  CHECK(tess_tensor_to_host(c, sizeof(c), tc));

  if (rank == 0) {
    printf("header %d.%d.%d library %s number %d\n", TESS_VERSION_MAJOR, TESS_VERSION_MINOR,
           TESS_VERSION_PATCH, tess_version(), (int)tess_version_number());
    printf("c =");
    for (int i = 0; i < kRows * kCols; ++i) printf(" %g", c[i]);
    printf("\n");
  }
  printf("rank %d of %d: %lld rows\n", (int)rank, (int)size, local_rows);

  tess_tensor_destroy(ta);
  tess_tensor_destroy(tb);
  tess_tensor_destroy(tc);
  tess_nd_sbp_destroy(split);
  tess_nd_sbp_destroy(broadcast);
  tess_placement_destroy(world);
  CHECK(tess_runtime_finalize());
  return EXIT_SUCCESS;
}
