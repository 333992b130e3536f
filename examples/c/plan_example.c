/* Plan mode from C: capture a small MLP forward from ordinary eager calls, compile
 * it, and run it several times from pre-planned register memory.
 *
 *   bazel build //examples/c:plan_example
 *   tools/mpirun.sh -np 2 bazel-bin/examples/c/plan_example
 *
 * Every rank prints the plan's memory figures; rank 0 prints, for each run, the
 * largest difference between the plan's output and the same model run eagerly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera/tessera.h"

#define CHECK(call)                                                                             \
  do {                                                                                          \
    if ((call) != TESS_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tess_last_error_message()); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

enum { kBatch = 8, kIn = 16, kHidden = 32, kOut = 4 };

/* softmax(relu(x @ w1) @ w2): eager on real tensors, recorded on a placeholder. */
static tess_tensor* model(const tess_tensor* x, const tess_tensor* w1, const tess_tensor* w2) {
  tess_tensor *h, *r, *logits, *y;
  CHECK(tess_matmul(&h, x, w1, 0, 0));
  CHECK(tess_relu(&r, h));
  CHECK(tess_matmul(&logits, r, w2, 0, 0));
  CHECK(tess_softmax(&y, logits, -1));
  tess_tensor_destroy(h);
  tess_tensor_destroy(r);
  tess_tensor_destroy(logits);
  return y;
}

int main(void) {
  CHECK(tess_runtime_init());
  int32_t rank = 0, size = 1;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&size));

  /* The world as a 1-d placement: cpu:[0,...,size-1]. */
  int32_t* ranks = malloc(sizeof(int32_t) * (size_t)size);
  for (int32_t r = 0; r < size; ++r) ranks[r] = r;
  const int64_t hierarchy[] = {size};
  tess_placement* world;
  CHECK(tess_placement_create(&world, TESS_DEVICE_CPU, ranks, (size_t)size, hierarchy, 1));
  free(ranks);
  tess_nd_sbp *split0, *split1, *broadcast;
  CHECK(tess_nd_sbp_parse(&split0, "S(0)"));
  CHECK(tess_nd_sbp_parse(&split1, "S(1)"));
  CHECK(tess_nd_sbp_parse(&broadcast, "B"));

  /* Weights: w1 split by columns (model parallel), w2 broadcast. */
  const int64_t w1_shape[] = {kIn, kHidden}, w2_shape[] = {kHidden, kOut};
  tess_tensor *w1, *w2;
  CHECK(tess_tensor_randn(&w1, w1_shape, 2, TESS_DTYPE_F32, 1, world, split1));
  CHECK(tess_tensor_randn(&w2, w2_shape, 2, TESS_DTYPE_F32, 2, world, broadcast));

  /* Capture: the same model function, applied to a placeholder. */
  const int64_t x_shape[] = {kBatch, kIn};
  tess_tensor* x;
  CHECK(tess_capture_begin());
  CHECK(tess_capture_placeholder(&x, "x", x_shape, 2, TESS_DTYPE_F32, world, NULL));
  tess_tensor* y = model(x, w1, w2);
  tess_program* program;
  CHECK(tess_capture_end(&program, (const tess_tensor* const*)&y, 1));
  tess_tensor_destroy(x);
  tess_tensor_destroy(y);
  if (rank == 0) printf("%s\n", tess_program_string(program));

  tess_plan* plan;
  tess_plan_compile_options compile_options = TESS_PLAN_COMPILE_OPTIONS_INIT;
  compile_options.input_register_num = 1;
  CHECK(tess_plan_compile(&plan, program, &compile_options));
  tess_plan_instance* instance;
  CHECK(tess_plan_instantiate(&instance, plan));

  float got[kBatch * kOut], want[kBatch * kOut];
  for (uint64_t step = 0; step < 3; ++step) {
    tess_tensor* input;
    CHECK(tess_tensor_rand(&input, x_shape, 2, TESS_DTYPE_F32, 100 + step, world, split0));
    CHECK(tess_plan_instance_run(instance, (const tess_tensor* const*)&input, 1));
    tess_tensor* out;
    CHECK(tess_plan_instance_output(&out, instance, 0));
    CHECK(tess_tensor_to_host(got, sizeof(got), out));
    tess_tensor* eager = model(input, w1, w2);
    CHECK(tess_tensor_to_host(want, sizeof(want), eager));
    double max_diff = 0;
    for (int i = 0; i < kBatch * kOut; ++i) max_diff = fmax(max_diff, fabs(got[i] - want[i]));
    if (rank == 0) printf("run %d: max |plan - eager| = %.3g\n", (int)step, max_diff);
    tess_tensor_destroy(out);
    tess_tensor_destroy(eager);
    tess_tensor_destroy(input);
  }

  int64_t block, lower_bound, no_reuse;
  tess_plan_stats stats = TESS_PLAN_STATS_INIT;
  CHECK(tess_plan_instance_get_stats(&stats, instance));
  CHECK(tess_plan_instance_mem_case_bytes(&block, &lower_bound, &no_reuse, instance, 0));
  printf(
      "rank %d: %lld registers, %lld steps (%lld boxing), %s block %lld bytes "
      "(lower bound %lld, without reuse %lld), allocator calls in the last run: %lld\n",
      (int)rank, (long long)stats.registers, (long long)stats.steps, (long long)stats.boxing_steps,
      tess_plan_instance_mem_case_name(instance, 0), (long long)block, (long long)lower_bound,
      (long long)no_reuse, (long long)stats.allocator_calls_last_run);

  tess_plan_instance_destroy(instance);
  tess_plan_destroy(plan);
  tess_program_destroy(program);
  tess_tensor_destroy(w1);
  tess_tensor_destroy(w2);
  tess_nd_sbp_destroy(split0);
  tess_nd_sbp_destroy(split1);
  tess_nd_sbp_destroy(broadcast);
  tess_placement_destroy(world);
  CHECK(tess_runtime_finalize());
  return 0;
}
