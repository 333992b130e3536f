/* A C program that forgets to stop its server: tess_runtime_finalize stops it (the
 * driver answers what is queued and releases the followers, whose tess_server_follow
 * returns TESS_OK), and tess_server_destroy after finalize makes no MPI call. Before
 * that guard a driver's keep-alive or stop after MPI_Finalize aborted the rank. Plain C
 * through tessera.h, as a user's program is. Exit status 0 on success. */
#include <stdio.h>
#include <string.h>

#include "tessera/tessera.h"

#define CHECK(call)                                                                             \
  do {                                                                                          \
    tess_status st_ = (call);                                                                   \
    if (st_ != TESS_OK) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tess_last_error_message()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

int main(void) {
  tess_runtime_init_options init = TESS_RUNTIME_INIT_OPTIONS_INIT;
  init.collective_timeout_seconds = 10;
  CHECK(tess_runtime_init_with_options(&init));
  int32_t rank = 0, size = 0;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&size));

  /* y = relu(x) on 4 rows of 2, x split by rows over every rank. */
  char text[64];
  int n = snprintf(text, sizeof text, "cpu:0-%d", size - 1);
  if (n <= 0) return 1;
  tess_placement* world = NULL;
  tess_nd_sbp* rows = NULL;
  CHECK(tess_placement_parse(&world, text));
  CHECK(tess_nd_sbp_parse(&rows, "S(0)"));
  tess_program* program = NULL;
  CHECK(tess_program_create(&program));
  const int64_t shape[] = {4, 2};
  int64_t x = -1, y = -1;
  size_t outputs = 0;
  CHECK(tess_program_add_input(&x, program, "x", shape, 2, TESS_DTYPE_F32, world, rows));
  tess_op_call* relu = NULL;
  CHECK(tess_op_call_create(&relu, "relu"));
  CHECK(tess_program_add_op(&y, &outputs, program, relu, &x, 1));
  CHECK(tess_program_mark_output(program, y));
  tess_plan* plan = NULL;
  CHECK(tess_plan_compile(&plan, program, NULL));

  tess_server* server = NULL;
  CHECK(tess_server_create(&server, NULL));
  int32_t id = -1;
  CHECK(tess_server_add_plan(&id, server, plan, NULL));
  int failures = 0;
  if (rank == 0) {
    tess_serve_request* request = NULL;
    CHECK(tess_serve_request_create(&request, server, id));
    const float in[6] = {-1.5f, 2.0f, 3.0f, -4.0f, 0.0f, 5.5f};
    float out[6] = {0};
    const float want[6] = {0.0f, 2.0f, 3.0f, 0.0f, 0.0f, 5.5f};
    CHECK(tess_serve_request_set_input(request, 0, in, sizeof in));
    CHECK(tess_server_run(server, request));
    CHECK(tess_serve_request_output(out, sizeof out, request, 0));
    if (memcmp(out, want, sizeof out) != 0) {
      fprintf(stderr, "wrong answer\n");
      failures++;
    }
    tess_serve_request_destroy(request);
    /* No tess_server_stop: finalize must do it. */
  } else {
    CHECK(tess_server_follow(server));
  }
  CHECK(tess_runtime_finalize());
  tess_server_stats stats = TESS_SERVER_STATS_INIT;
  CHECK(tess_server_get_stats(&stats, server));
  if (stats.stopped != 1) {
    fprintf(stderr, "rank %d: the server is not stopped after finalize\n", (int)rank);
    failures++;
  }
  tess_server_destroy(server); /* after finalize: no MPI call */
  tess_plan_destroy(plan);
  tess_op_call_destroy(relu);
  tess_program_destroy(program);
  tess_nd_sbp_destroy(rows);
  tess_placement_destroy(world);
  if (failures == 0) printf("rank %d: ok\n", (int)rank);
  return failures == 0 ? 0 : 1;
}
