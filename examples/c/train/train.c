/* Trains an MLP (64 -> 64 -> 10, ReLU) on the handwritten digits compiled into the
 * program (digits_data.h; data/digits/README.md), data parallel over every rank: the
 * weights are broadcast (B), each batch is split by rows (S(0)), and the gradients
 * come out of autograd as partial sums that the optimizer all-reduces. Rank 0 prints
 * one line per epoch (the mean training loss and the test accuracy; with a terminal,
 * a progress bar while the epoch runs) and the final accuracy.
 *
 *   bazel build //examples/c/train && tools/mpirun.sh -np 4 bazel-bin/examples/c/train/train
 *
 * Options: --epochs N (20), --batch N (64), --lr X (0.01), --seed N (1), --fused 0|1
 * (1), --curve FILE (JSON lines per epoch, from rank 0), --bar 0|1 (the progress bar;
 * by default drawn when stdout is a terminal, which under mpirun it always is: Open MPI
 * gives ranks a pseudo-terminal). The same seed gives the same
 * numbers at any number of ranks, up to the order of float sums, and the same as
 * examples/python/train. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digits_data.h"
#include "tessera/tessera.h"

#define CHECK(call)                                                                             \
  do {                                                                                          \
    if ((call) != TESS_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tess_last_error_message()); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

enum { kPixels = TESS_DIGITS_PIXELS, kHidden = 64, kClasses = 10 };

typedef struct {
  int epochs, batch, fused, bar;
  double lr;
  uint64_t seed;
  const char* curve;
} Config;

/* splitmix64: the shuffles' random numbers (examples/python/train uses the same). */
static uint64_t next_random(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Fisher-Yates with splitmix64 seeded by (seed, epoch). */
static void shuffle(int* items, int n, uint64_t seed, int epoch) {
  uint64_t state = seed * 1000003u + (uint64_t)epoch;
  for (int i = n - 1; i > 0; --i) {
    const int j = (int)(next_random(&state) % (uint64_t)(i + 1));
    const int t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
}

/* Rows `rows[0..n)` of the dataset: pixels / 16 as f32 [n, 64] and labels as i64. */
static void gather_rows(const int* rows, int n, float* x, int64_t* y) {
  for (int i = 0; i < n; ++i) {
    for (int p = 0; p < kPixels; ++p) x[i * kPixels + p] = tess_digits[rows[i]][p] / 16.0f;
    y[i] = tess_digits[rows[i]][kPixels];
  }
}

typedef struct {
  tess_tensor *w1, *b1, *w2, *b2;
} Model;

/* logits = relu(x @ w1 + b1) @ w2 + b2. */
static tess_tensor* forward(const Model* m, const tess_tensor* x) {
  tess_tensor *h, *hb, *r, *o, *logits;
  CHECK(tess_matmul(&h, x, m->w1, 0, 0));
  CHECK(tess_bias_add(&hb, h, m->b1, 1));
  CHECK(tess_relu(&r, hb));
  CHECK(tess_matmul(&o, r, m->w2, 0, 0));
  CHECK(tess_bias_add(&logits, o, m->b2, 1));
  tess_tensor_destroy(h);
  tess_tensor_destroy(hb);
  tess_tensor_destroy(r);
  tess_tensor_destroy(o);
  return logits;
}

/* A parameter: randn * scale (or zeros), broadcast, requiring a gradient. */
static tess_tensor* parameter(const int64_t* shape, size_t ndim, double scale, uint64_t seed,
                              const tess_placement* world, const tess_nd_sbp* b) {
  tess_tensor *raw, *p;
  if (scale == 0) {
    CHECK(tess_tensor_full(&p, shape, ndim, TESS_DTYPE_F32, 0.0, world, b));
  } else {
    CHECK(tess_tensor_randn(&raw, shape, ndim, TESS_DTYPE_F32, seed, world, b));
    CHECK(tess_scalar_mul(&p, raw, scale));
    tess_tensor_destroy(raw);
  }
  CHECK(tess_tensor_set_requires_grad(p, 1));
  return p;
}

static void parse_args(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) {
      fprintf(stderr, "train: option %s needs a value\n", a);
      exit(2);
    }
    if (strcmp(a, "--epochs") == 0) {
      c->epochs = atoi(v);
    } else if (strcmp(a, "--batch") == 0) {
      c->batch = atoi(v);
    } else if (strcmp(a, "--lr") == 0) {
      c->lr = atof(v);
    } else if (strcmp(a, "--seed") == 0) {
      c->seed = strtoull(v, NULL, 10);
    } else if (strcmp(a, "--fused") == 0) {
      c->fused = atoi(v);
    } else if (strcmp(a, "--bar") == 0) {
      c->bar = atoi(v);
    } else if (strcmp(a, "--curve") == 0) {
      c->curve = v;
    } else {
      fprintf(stderr, "train: unknown option %s\n", a);
      exit(2);
    }
    ++i;
  }
  if (c->epochs < 1 || c->batch < 1 || !(c->lr > 0)) {
    fprintf(stderr, "train: --epochs and --batch must be >= 1 and --lr > 0\n");
    exit(2);
  }
}

static void progress(int epoch, int epochs, int step, int steps) {
  enum { kWidth = 30 };
  char bar[kWidth + 1];
  const int done = step * kWidth / steps;
  for (int i = 0; i < kWidth; ++i) bar[i] = i < done ? '#' : '.';
  bar[kWidth] = '\0';
  printf("\repoch %2d/%d [%s] %d/%d", epoch, epochs, bar, step, steps);
  fflush(stdout);
}

/* Test accuracy: the model on every test row, argmax on the host. */
static double evaluate(const Model* m, const int* rows, int n, const tess_placement* world,
                       const tess_nd_sbp* s0, float* x, int64_t* y) {
  int32_t previous;
  CHECK(tess_autograd_set_grad_enabled(0, &previous));
  gather_rows(rows, n, x, y);
  const int64_t shape[] = {n, kPixels};
  tess_tensor *xt, *logits;
  CHECK(tess_tensor_from_host(&xt, x, shape, 2, TESS_DTYPE_F32, world, s0));
  logits = forward(m, xt);
  float* out = malloc(sizeof(float) * (size_t)n * kClasses);
  CHECK(tess_tensor_to_host(out, sizeof(float) * (size_t)n * kClasses, logits));
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    int best = 0;
    for (int k = 1; k < kClasses; ++k) {
      if (out[i * kClasses + k] > out[i * kClasses + best]) best = k;
    }
    correct += best == y[i];
  }
  free(out);
  tess_tensor_destroy(logits);
  tess_tensor_destroy(xt);
  CHECK(tess_autograd_set_grad_enabled(previous, NULL));
  return (double)correct / n;
}

int main(int argc, char** argv) {
  Config c = {20, 64, 1, -1, 0.01, 1, NULL};
  parse_args(argc, argv, &c);
  CHECK(tess_runtime_init());
  int32_t rank = 0, size = 1;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&size));
  int32_t* ranks = malloc(sizeof(int32_t) * (size_t)size);
  for (int32_t r = 0; r < size; ++r) ranks[r] = r;
  const int64_t hierarchy[] = {size};
  tess_placement* world;
  CHECK(tess_placement_create(&world, TESS_DEVICE_CPU, ranks, (size_t)size, hierarchy, 1));
  free(ranks);
  tess_nd_sbp *s0, *b;
  CHECK(tess_nd_sbp_parse(&s0, "S(0)"));
  CHECK(tess_nd_sbp_parse(&b, "B"));

  /* Every fifth row is a test row: 1438 to train on, 359 to test. */
  int* train_rows = malloc(sizeof(int) * TESS_DIGITS_ROWS);
  int* test_rows = malloc(sizeof(int) * TESS_DIGITS_ROWS);
  int num_train = 0, num_test = 0;
  for (int i = 0; i < TESS_DIGITS_ROWS; ++i) {
    if (i % 5 == 4) {
      test_rows[num_test++] = i;
    } else {
      train_rows[num_train++] = i;
    }
  }

  const int64_t w1_shape[] = {kPixels, kHidden}, b1_shape[] = {kHidden};
  const int64_t w2_shape[] = {kHidden, kClasses}, b2_shape[] = {kClasses};
  Model m;
  m.w1 = parameter(w1_shape, 2, sqrt(2.0 / kPixels), c.seed * 10 + 1, world, b);
  m.b1 = parameter(b1_shape, 1, 0, 0, world, b);
  m.w2 = parameter(w2_shape, 2, sqrt(1.0 / kHidden), c.seed * 10 + 2, world, b);
  m.b2 = parameter(b2_shape, 1, 0, 0, world, b);
  tess_tensor* params[] = {m.w1, m.b1, m.w2, m.b2};
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  o.algorithm = TESS_OPTIMIZER_ADAMW;
  o.lr = c.lr;
  o.weight_decay = 1e-4;
  o.fused = c.fused;
  tess_optimizer* opt;
  CHECK(tess_optimizer_create(&opt, params, 4, &o));

  FILE* curve = NULL;
  if (rank == 0 && c.curve != NULL) {
    curve = fopen(c.curve, "w");
    if (curve == NULL) {
      fprintf(stderr, "train: cannot write --curve %s\n", c.curve);
      exit(2);
    }
  }
  const int tty = rank == 0 && (c.bar < 0 ? isatty(STDOUT_FILENO) : c.bar);
  if (rank == 0) {
    printf("training a 64-%d-%d MLP on %d digits (%d held out), %d rank%s, batch %d\n", kHidden,
           kClasses, num_train, num_test, size, size == 1 ? "" : "s", c.batch);
  }
  const int steps = num_train / c.batch; /* the last partial batch is dropped */
  float* x = malloc(sizeof(float) * (size_t)TESS_DIGITS_ROWS * kPixels);
  int64_t* y = malloc(sizeof(int64_t) * TESS_DIGITS_ROWS);
  const int64_t x_shape[] = {c.batch, kPixels}, y_shape[] = {c.batch};
  double accuracy = 0;
  for (int epoch = 1; epoch <= c.epochs; ++epoch) {
    shuffle(train_rows, num_train, c.seed, epoch);
    double loss_sum = 0;
    for (int step = 0; step < steps; ++step) {
      gather_rows(train_rows + step * c.batch, c.batch, x, y);
      tess_tensor *xt, *yt, *logits, *prob, *losses, *loss;
      CHECK(tess_tensor_from_host(&xt, x, x_shape, 2, TESS_DTYPE_F32, world, s0));
      CHECK(tess_tensor_from_host(&yt, y, y_shape, 1, TESS_DTYPE_I64, world, s0));
      logits = forward(&m, xt);
      CHECK(tess_sparse_softmax_cross_entropy(&prob, &losses, logits, yt));
      CHECK(tess_reduce_mean(&loss, losses, NULL, 0, 0));
      const tess_tensor* roots[] = {loss};
      CHECK(tess_autograd_backward(roots, 1, NULL, NULL));
      CHECK(tess_optimizer_step(opt));
      CHECK(tess_optimizer_zero_grad(opt));
      float value = 0;
      CHECK(tess_tensor_to_host(&value, sizeof value, loss));
      loss_sum += value;
      tess_tensor_destroy(loss);
      tess_tensor_destroy(losses);
      tess_tensor_destroy(prob);
      tess_tensor_destroy(logits);
      tess_tensor_destroy(yt);
      tess_tensor_destroy(xt);
      if (tty) progress(epoch, c.epochs, step + 1, steps);
    }
    accuracy = evaluate(&m, test_rows, num_test, world, s0, x, y);
    const double loss = loss_sum / steps;
    if (rank == 0) {
      printf("%sepoch %2d/%d  loss %.4f  test accuracy %.2f%%%s\n", tty ? "\r" : "", epoch,
             c.epochs, loss, 100 * accuracy, tty ? "          " : "");
      if (curve != NULL) {
        fprintf(curve, "{\"epoch\": %d, \"loss\": %.6f, \"test_accuracy\": %.6f, \"ranks\": %d}\n",
                epoch, loss, accuracy, size);
      }
      fflush(stdout);
    }
  }
  if (rank == 0) {
    printf("final test accuracy: %.2f%% (%d of %d digits)\n", 100 * accuracy,
           (int)lround(accuracy * num_test), num_test);
  }
  if (curve != NULL) fclose(curve);
  tess_optimizer_destroy(opt);
  for (int i = 0; i < 4; ++i) tess_tensor_destroy(params[i]);
  free(x);
  free(y);
  free(train_rows);
  free(test_rows);
  tess_nd_sbp_destroy(s0);
  tess_nd_sbp_destroy(b);
  tess_placement_destroy(world);
  CHECK(tess_runtime_finalize());
  return 0;
}
