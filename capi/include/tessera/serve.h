/*
 * Tessera C API. Serving: one rank (the driver) takes requests, the others (the
 * followers) run in lockstep what it issues.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>. The model: docs/serving.md.
 *
 * Tessera is SPMD: every rank makes the same calls. A service receives a request on
 * one process. A server bridges the two:
 *
 *   every rank:  tess_runtime_init ... build the program, tess_plan_compile
 *                tess_server_create(&server, NULL)
 *                tess_server_add_plan(&id, server, plan, &plan_options)
 *   driver:      service threads: tess_serve_request_create / _set_input,
 *                tess_server_run (blocks until answered), _output
 *                at the end: tess_server_stop
 *   followers:   tess_server_follow(server)   (returns once the driver stops)
 *   every rank:  tess_server_destroy, tess_runtime_finalize
 *
 * The driver holds a request's rows in host memory; the server boxes them from the
 * driver into the plan's input layouts, runs the plan on every rank and gathers the
 * outputs back to the driver. Requests from any number of threads queue and are
 * served in arrival order by one dispatcher thread, which alone issues the driver's
 * collectives (so every rank sees them in one order). With batching on, requests of
 * one plan are concatenated along axis 0 up to a row limit or a queue delay, run
 * once and split back (rows must not depend on each other: a plan whose ops mix rows,
 * a softmax over axis 0 say, answers differently batched).
 *
 * Waiting costs little CPU: an idle driver sleeps on a condition variable, and
 * followers poll for the next command with pauses that grow to follower_poll_max_us
 * (a few percent of a core each at the default 500 us; docs/serving.md has figures),
 * so a request after idle starts within about that long.
 *
 * Faults: when a run or a health check fails on a collective timeout, or a follower
 * does not answer within follower_timeout_seconds, the server is unavailable from
 * then on: queued and new requests fail at once with UNAVAILABLE quoting the first
 * error, tess_server_check_health says so, and tess_server_stop still returns.
 */
#ifndef TESSERA_SERVE_H_
#define TESSERA_SERVE_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/dtype.h"
#include "tessera/plan.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A server: on the driver, the request queue and its dispatcher; on a follower, what
 * it needs to follow. Thread safety: tess_server_run, tess_server_check_health,
 * tess_server_get_stats and the plan queries may be called from any thread at once;
 * create, add_plan, follow, stop and destroy from one thread. */
typedef struct tess_server tess_server;

/* Options of tess_server_create. Start from TESS_SERVER_OPTIONS_INIT (docs/c-api.md,
 * "ABI"). Append only. */
typedef struct tess_server_options {
  size_t struct_size; /* sizeof(tess_server_options) */
  /* The world rank that drives (takes requests); every other rank follows. 0 default. */
  int32_t driver_rank;
  /* Must be 0. */
  int32_t reserved;
  /* How long the driver waits for followers to take a command or answer a health
   * check before it declares the server unavailable, and how long followers wait for
   * word from the driver: 0.01 to 1e6 seconds. 0 (default): the collective timeout when
   * one is set (tess_comm_set_collective_timeout), else 30. */
  double follower_timeout_seconds;
  /* The longest pause, in microseconds, between a waiting follower's polls for the
   * next command: 1 to 100000; 0 (default) means 500. Longer pauses cost less idle CPU
   * and add up to this much latency to the first request after idle. */
  int64_t follower_poll_max_us;
} tess_server_options;

#define TESS_SERVER_OPTIONS_INIT \
  { sizeof(tess_server_options), 0, 0, 0.0, 0 }

/* A server over every rank of the world; `options` NULL means the defaults. Collective
 * over the world: every rank calls it, in the same order relative to its other server
 * creations. INVALID_ARGUMENT, naming the field and value, for a bad struct_size, a
 * driver_rank outside the world, a nonzero reserved, a follower_timeout_seconds that
 * is NaN or outside {0} and [0.01, 1e6], or a follower_poll_max_us outside [0, 100000];
 * FAILED_PRECONDITION before tess_runtime_init; DEADLINE_EXCEEDED when a collective
 * timeout is set and not every rank called it within that time. */
TESS_API tess_status tess_server_create(tess_server** out, const tess_server_options* options);
/* On the driver: tess_server_stop first (queued requests are answered, the followers
 * released). On a follower: call it after tess_server_follow returned. NULL is a
 * no-op. Requests made for this server must be destroyed first. */
TESS_API void tess_server_destroy(tess_server* server);
/* *out = 1 on the driver rank, 0 on a follower. Local. */
TESS_API tess_status tess_server_is_driver(int32_t* out, const tess_server* server);

/* Options of tess_server_add_plan. Start from TESS_SERVE_PLAN_OPTIONS_INIT. Append only. */
typedef struct tess_serve_plan_options {
  size_t struct_size; /* sizeof(tess_serve_plan_options) */
  /* 1: dynamic batching (requests of this plan share runs); 0 (default): one request a
   * run. */
  int32_t batching;
  /* Must be 0. */
  int32_t reserved;
  /* The most rows one request, or one batch, may hold: 1 to the plan's capacity (its
   * inputs' dim 0); 0 (default): the capacity. */
  int64_t max_batch_rows;
  /* Batching: how long the oldest waiting request may wait for others to fill its
   * batch, in microseconds, 0 to 10000000 (0: run with whatever is queued). A full
   * batch runs at once. Ignored without batching. */
  int64_t max_queue_delay_us;
  /* The most requests of this plan that may wait; a request beyond it fails with
   * RESOURCE_EXHAUSTED. 0 (default): 4096. At most 1000000. */
  int64_t max_queued_requests;
} tess_serve_plan_options;

#define TESS_SERVE_PLAN_OPTIONS_INIT \
  { sizeof(tess_serve_plan_options), 0, 0, 0, 0, 0 }

/* Makes `plan` servable by `server`; *out = its plan id (0, 1, ... in the order added).
 * Every rank adds the plans it compiled from the same program, in the same order. The
 * plan's data inputs and outputs must all be batched along axis 0 with one size, the
 * capacity (at least 1 row), and lie on placements whose ranks are in the world; the
 * server instantiates the plan once (its registers) and keeps the plan alive. Local
 * (no communication). INVALID_ARGUMENT naming the input or output whose shape breaks
 * that, a bad struct_size, batching other than 0 or 1, a nonzero reserved, or a limit
 * out of range (naming it and the value); FAILED_PRECONDITION once the server is
 * following, stopped or serving (after the first tess_server_run). */
TESS_API tess_status tess_server_add_plan(int32_t* out, tess_server* server, const tess_plan* plan,
                                          const tess_serve_plan_options* options);
/* The number of plans added. */
TESS_API tess_status tess_server_num_plans(int32_t* out, const tess_server* server);

/* What a plan takes and gives (any rank, local). OUT_OF_RANGE for an unknown plan id
 * or index. */
typedef struct tess_serve_plan_info {
  size_t struct_size; /* sizeof(tess_serve_plan_info) */
  int64_t num_inputs;
  int64_t num_outputs;
  int64_t capacity_rows;  /* the plan's dim 0 */
  int64_t max_batch_rows; /* the option, resolved */
  int64_t max_queue_delay_us;
  int64_t max_queued_requests; /* resolved */
  int32_t batching;
  int32_t reserved;
} tess_serve_plan_info;

#define TESS_SERVE_PLAN_INFO_INIT \
  { sizeof(tess_serve_plan_info), 0, 0, 0, 0, 0, 0, 0, 0 }

/* Fills the fields of *out that its struct_size covers. INVALID_ARGUMENT for a NULL or
 * a struct_size below the first version's. */
TESS_API tess_status tess_server_get_plan_info(tess_serve_plan_info* out, const tess_server* server,
                                               int32_t plan_id);
/* Elements per row (the product of dims 1..) of input / output `index`. */
TESS_API tess_status tess_server_plan_input_width(int64_t* out, const tess_server* server,
                                                  int32_t plan_id, size_t index);
TESS_API tess_status tess_server_plan_output_width(int64_t* out, const tess_server* server,
                                                   int32_t plan_id, size_t index);
TESS_API tess_status tess_server_plan_input_dtype(tess_dtype* out, const tess_server* server,
                                                  int32_t plan_id, size_t index);
TESS_API tess_status tess_server_plan_output_dtype(tess_dtype* out, const tess_server* server,
                                                   int32_t plan_id, size_t index);

/* Followers: executes, in lockstep with the driver, what it issues (plan runs, health
 * checks) until the driver stops the server; then returns TESS_OK. A failed run is
 * the driver's to report (it fails the requests); the follower goes on following.
 * The driver sends a keep-alive at least every second (a quarter of
 * follower_timeout_seconds when that is shorter), whatever it is doing; UNAVAILABLE when nothing
 * came from it for follower_timeout_seconds (the driver died or is stopped; time this process
 * itself was stopped does not count). FAILED_PRECONDITION on the driver or when called twice.
 * Blocks; costs no CPU while the driver is idle (see follower_poll_max_us). */
TESS_API tess_status tess_server_follow(tess_server* server);

/* Driver: stops taking requests (tess_server_run fails with CANCELLED from now on),
 * answers those already queued, releases the followers and joins the dispatcher.
 * Idempotent; also after a fault (the followers are then told to stop, with
 * follower_timeout_seconds as the bound). FAILED_PRECONDITION on a follower. */
TESS_API tess_status tess_server_stop(tess_server* server);

/* Driver: asks every follower to answer and waits up to timeout_seconds (> 0, at most
 * 1e6) for the answers. The check goes out between two batches, ahead of queued
 * requests; concurrent checks share one round. Checking before the followers called
 * tess_server_follow fails the server once follower_timeout_seconds pass. TESS_OK when all
 * answered; UNAVAILABLE, quoting the first error, once the server has failed (a follower did not
 * answer within follower_timeout_seconds, or a run timed out); DEADLINE_EXCEEDED when
 * timeout_seconds passed first (the server is busy or slow, not yet failed);
 * CANCELLED once stopped; FAILED_PRECONDITION on a follower; INVALID_ARGUMENT for a
 * bad timeout. */
TESS_API tess_status tess_server_check_health(tess_server* server, double timeout_seconds);

/* The server's counters. Append only. */
typedef struct tess_server_stats {
  size_t struct_size;      /* sizeof(tess_server_stats) */
  int64_t requests;        /* tess_server_run calls that were queued */
  int64_t failed_requests; /* those answered with an error (and calls refused) */
  int64_t runs;            /* plan runs (batches) */
  int64_t rows;            /* request rows served */
  int64_t queued_requests; /* waiting now */
  int64_t health_checks;   /* rounds answered by every follower (concurrent checks share one) */
  int32_t available;       /* 0 once the server has failed */
  int32_t stopped;         /* 1 once stopped (driver) or released (follower) */
  /* Heap allocations the last batch made on the thread that ran it (the driver's
   * dispatcher, or the follower): 0 once warm, with request objects reused. -1: not
   * counted (libtessera.so does not replace operator new; tests linking Tessera
   * statically do). */
  int64_t heap_allocations_last_batch;
} tess_server_stats;

#define TESS_SERVER_STATS_INIT \
  { sizeof(tess_server_stats), 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* Fills the fields of *out that its struct_size covers. */
TESS_API tess_status tess_server_get_stats(tess_server_stats* out, const tess_server* server);

/* A request: the rows of one call of one plan, and after tess_server_run its answer.
 * Reusable: set new inputs and run again. One thread uses a request at a time. */
typedef struct tess_serve_request tess_serve_request;

/* A request for plan `plan_id` of `server` (driver or not: a follower can fill one,
 * but not run it). OUT_OF_RANGE for an unknown plan id. Local. */
TESS_API tess_status tess_serve_request_create(tess_serve_request** out, const tess_server* server,
                                               int32_t plan_id);
TESS_API void tess_serve_request_destroy(tess_serve_request* request);
/* Copies input `index`'s rows: rows_bytes bytes of row-major elements of the input's
 * dtype, a whole number of rows (rows_bytes / (width * element size)), 1 to the plan's
 * max_batch_rows of them. Every input of a request must hold the same number of
 * rows. INVALID_ARGUMENT naming the index and the sizes otherwise; OUT_OF_RANGE for a
 * bad index. */
TESS_API tess_status tess_serve_request_set_input(tess_serve_request* request, size_t index,
                                                  const void* rows_data, size_t rows_bytes);
/* The rows of input 0 as last set (0 before). */
TESS_API tess_status tess_serve_request_rows(int64_t* out, const tess_serve_request* request);

/* Driver: queues `request` and blocks until it is answered: its outputs then hold one
 * row per input row. Any thread. One server per process may serve at a time (two
 * servers' collectives would interleave differently on each rank): the first run or
 * follow of a server while another one of the process serves (is not stopped) is
 * FAILED_PRECONDITION; so is issuing other Tessera collectives on the plan's ranks
 * while serving, which the library cannot detect. INVALID_ARGUMENT for an input never set, inputs
 * with different row counts, or a request of another server; RESOURCE_EXHAUSTED when the plan's
 * queue is full; CANCELLED after tess_server_stop began; UNAVAILABLE once the server has failed
 * (quoting why); a run's error (DEADLINE_EXCEEDED on a collective timeout, which makes the server
 * fail); FAILED_PRECONDITION on a follower. */
TESS_API tess_status tess_server_run(tess_server* server, tess_serve_request* request);

/* The byte size of output `index` of the last successful run (rows x width x element
 * size); FAILED_PRECONDITION before one. */
TESS_API tess_status tess_serve_request_output_bytes(size_t* out, const tess_serve_request* request,
                                                     size_t index);
/* Copies output `index` (row-major) into `out`. INVALID_ARGUMENT when out_bytes is
 * smaller than tess_serve_request_output_bytes (naming both); FAILED_PRECONDITION before
 * a successful run; OUT_OF_RANGE for a bad index. */
TESS_API tess_status tess_serve_request_output(void* out, size_t out_bytes,
                                               const tess_serve_request* request, size_t index);

/* How the last run of a request went. Append only. */
typedef struct tess_serve_request_info {
  size_t struct_size;     /* sizeof(tess_serve_request_info) */
  int64_t batch_rows;     /* rows of the batch that served it */
  int64_t batch_requests; /* requests in that batch */
  double queue_seconds;   /* from tess_server_run to the batch's start */
  double run_seconds;     /* the batch: boxing in, the plan, gathering out */
} tess_serve_request_info;

#define TESS_SERVE_REQUEST_INFO_INIT \
  { sizeof(tess_serve_request_info), 0, 0, 0.0, 0.0 }

/* Fills the fields of *out that its struct_size covers; FAILED_PRECONDITION before a
 * successful run. */
TESS_API tess_status tess_serve_request_get_info(tess_serve_request_info* out,
                                                 const tess_serve_request* request);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_SERVE_H_ */
