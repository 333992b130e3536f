/* Parallel training by SBP alone: the digits MLP (64 -> 64 -> 10, ReLU; the data of
 * examples/c/train) trained in one of three styles that differ ONLY in the nd-sbps
 * given to the parameters and the batch. Inference inserts every collective: the
 * forward's reduction of partial logits, the backward's gradient reductions, and the
 * optimizer brings each gradient to its parameter's layout.
 *
 *   --style dp   data parallel on [n]:      x, labels S(0); W1, b1, W2, b2 B
 *   --style tp   tensor parallel on [n]:    x, labels B; W1 S(1), b1 S(0), W2 S(0), b2 B
 *                (Megatron's MLP: matmul(relu(x W1 + b1) S(1), W2 S(0)) is P, and the
 *                loss op takes it reduced)
 *   --style 2d   both on [2,2] at 4 ranks, else [n,1]: data parallel on axis 0,
 *                tensor parallel on axis 1: x, labels (S(0), B); W1 (B, S(1)),
 *                b1 (B, S(0)), W2 (B, S(0)), b2 (B, B)
 *
 * On a hierarchy axis of one rank every SBP is the same local tensor; the example
 * writes B there, which is what inference lists for such an axis.
 *
 *   bazel build //examples/c/parallel && \
 *     tools/mpirun.sh -np 4 bazel-bin/examples/c/parallel/parallel --style 2d
 *
 * Rank 0 prints "step N loss X" per step. Options: --style (dp), --steps N (10),
 * --batch N (64), --lr X (0.01), --seed N (1), --fused 0|1 (1). The same seed gives the
 * same losses in every style at any number of ranks, up to the order of float sums. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/digits_data.h"
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
  const char* style;
  int steps, batch, fused;
  double lr;
  uint64_t seed;
} Config;

/* The nd-sbps of one style: x and labels, then W1, b1, W2, b2. */
enum { kData, kW1, kB1, kW2, kB2, kLayouts };

typedef struct {
  int64_t hierarchy[2];
  size_t axes;
  tess_nd_sbp* sbp[kLayouts];
} Style;

static void usage_error(const char* message, const char* value) {
  fprintf(stderr, "parallel: %s%s\n", message, value);
  exit(2);
}

static void parse_args(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; i += 2) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) usage_error("this option needs a value: ", a);
    if (strcmp(a, "--style") == 0) {
      c->style = v;
    } else if (strcmp(a, "--steps") == 0) {
      c->steps = atoi(v);
    } else if (strcmp(a, "--batch") == 0) {
      c->batch = atoi(v);
    } else if (strcmp(a, "--lr") == 0) {
      c->lr = atof(v);
    } else if (strcmp(a, "--seed") == 0) {
      c->seed = strtoull(v, NULL, 10);
    } else if (strcmp(a, "--fused") == 0) {
      c->fused = atoi(v);
    } else {
      usage_error("unknown option ", a);
    }
  }
  if (strcmp(c->style, "dp") != 0 && strcmp(c->style, "tp") != 0 && strcmp(c->style, "2d") != 0) {
    usage_error("--style must be dp, tp or 2d, not ", c->style);
  }
  if (c->steps < 1 || c->batch < 1 || c->steps * c->batch > TESS_DIGITS_ROWS || !(c->lr > 0)) {
    fprintf(stderr,
            "parallel: --steps and --batch must be >= 1 with steps * batch <= %d, "
            "and --lr > 0\n",
            TESS_DIGITS_ROWS);
    exit(2);
  }
}

/* "(data, tensor)" for the 2-d style, with B on an axis of one rank. */
static tess_nd_sbp* sbp_2d(const Style* s, const char* data, const char* tensor) {
  char text[32];
  snprintf(text, sizeof text, "(%s, %s)", s->hierarchy[0] > 1 ? data : "B",
           s->hierarchy[1] > 1 ? tensor : "B");
  tess_nd_sbp* out;
  CHECK(tess_nd_sbp_parse(&out, text));
  return out;
}

static Style make_style(const char* name, int32_t size) {
  Style s;
  if (strcmp(name, "2d") == 0) {
    s.axes = 2;
    s.hierarchy[0] = size == 4 ? 2 : size;
    s.hierarchy[1] = size == 4 ? 2 : 1;
    s.sbp[kData] = sbp_2d(&s, "S(0)", "B");
    s.sbp[kW1] = sbp_2d(&s, "B", "S(1)");
    s.sbp[kB1] = sbp_2d(&s, "B", "S(0)");
    s.sbp[kW2] = sbp_2d(&s, "B", "S(0)");
    s.sbp[kB2] = sbp_2d(&s, "B", "B");
    return s;
  }
  const int tp = strcmp(name, "tp") == 0;
  const char* text[kLayouts] = {tp ? "B" : "S(0)", tp ? "S(1)" : "B", tp ? "S(0)" : "B",
                                tp ? "S(0)" : "B", "B"};
  s.axes = 1;
  s.hierarchy[0] = size;
  for (int i = 0; i < kLayouts; ++i) CHECK(tess_nd_sbp_parse(&s.sbp[i], text[i]));
  return s;
}

/* randn * scale (or zeros) in the given layout, requiring a gradient. randn's value
 * depends only on (shape, dtype, seed), so every style starts from the same model. */
static tess_tensor* parameter(const int64_t* shape, size_t ndim, double scale, uint64_t seed,
                              const tess_placement* world, const tess_nd_sbp* sbp) {
  tess_tensor *raw, *p;
  if (scale == 0) {
    CHECK(tess_tensor_full(&p, shape, ndim, TESS_DTYPE_F32, 0.0, world, sbp));
  } else {
    CHECK(tess_tensor_randn(&raw, shape, ndim, TESS_DTYPE_F32, seed, world, sbp));
    CHECK(tess_scalar_mul(&p, raw, scale));
    tess_tensor_destroy(raw);
  }
  CHECK(tess_tensor_set_requires_grad(p, 1));
  return p;
}

/* loss = mean(cross_entropy(relu(x W1 + b1) W2 + b2, labels)); backward; returns it. */
static float train_step(tess_tensor* const* params, const tess_tensor* x, const tess_tensor* y) {
  tess_tensor *h, *hb, *r, *o, *logits, *prob, *losses, *loss;
  CHECK(tess_matmul(&h, x, params[0], 0, 0));
  CHECK(tess_bias_add(&hb, h, params[1], 1));
  CHECK(tess_relu(&r, hb));
  CHECK(tess_matmul(&o, r, params[2], 0, 0));
  CHECK(tess_bias_add(&logits, o, params[3], 1));
  CHECK(tess_sparse_softmax_cross_entropy(&prob, &losses, logits, y));
  CHECK(tess_reduce_mean(&loss, losses, NULL, 0, 0));
  const tess_tensor* roots[] = {loss};
  CHECK(tess_autograd_backward(roots, 1, NULL, NULL));
  float value = 0;
  CHECK(tess_tensor_to_host(&value, sizeof value, loss));
  tess_tensor* temporaries[] = {h, hb, r, o, logits, prob, losses, loss};
  for (size_t i = 0; i < sizeof temporaries / sizeof temporaries[0]; ++i) {
    tess_tensor_destroy(temporaries[i]);
  }
  return value;
}

int main(int argc, char** argv) {
  Config c = {"dp", 10, 64, 1, 0.01, 1};
  parse_args(argc, argv, &c);
  CHECK(tess_runtime_init());
  int32_t rank = 0, size = 1;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&size));
  Style s = make_style(c.style, size);
  int32_t* ranks = malloc(sizeof(int32_t) * (size_t)size);
  for (int32_t r = 0; r < size; ++r) ranks[r] = r;
  tess_placement* world;
  CHECK(tess_placement_create(&world, TESS_DEVICE_CPU, ranks, (size_t)size, s.hierarchy, s.axes));
  free(ranks);

  const int64_t w1_shape[] = {kPixels, kHidden}, b1_shape[] = {kHidden};
  const int64_t w2_shape[] = {kHidden, kClasses}, b2_shape[] = {kClasses};
  tess_tensor* params[4];
  params[0] = parameter(w1_shape, 2, sqrt(2.0 / kPixels), c.seed * 10 + 1, world, s.sbp[kW1]);
  params[1] = parameter(b1_shape, 1, 0, 0, world, s.sbp[kB1]);
  params[2] = parameter(w2_shape, 2, sqrt(1.0 / kHidden), c.seed * 10 + 2, world, s.sbp[kW2]);
  params[3] = parameter(b2_shape, 1, 0, 0, world, s.sbp[kB2]);
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  o.algorithm = TESS_OPTIMIZER_ADAMW;
  o.lr = c.lr;
  o.weight_decay = 1e-4;
  o.fused = c.fused;
  tess_optimizer* opt;
  CHECK(tess_optimizer_create(&opt, params, 4, &o));

  if (rank == 0) {
    printf("style %s on %s, %d step%s of batch %d\n", c.style, tess_placement_string(world),
           c.steps, c.steps == 1 ? "" : "s", c.batch);
  }
  float* x = malloc(sizeof(float) * (size_t)c.batch * kPixels);
  int64_t* y = malloc(sizeof(int64_t) * (size_t)c.batch);
  const int64_t x_shape[] = {c.batch, kPixels}, y_shape[] = {c.batch};
  for (int step = 0; step < c.steps; ++step) {
    /* Step `step` trains on rows [step * batch, (step + 1) * batch), pixels / 16. */
    for (int i = 0; i < c.batch; ++i) {
      const unsigned char* row = tess_digits[step * c.batch + i];
      for (int p = 0; p < kPixels; ++p) x[i * kPixels + p] = row[p] / 16.0f;
      y[i] = row[kPixels];
    }
    tess_tensor *xt, *yt;
    CHECK(tess_tensor_from_host(&xt, x, x_shape, 2, TESS_DTYPE_F32, world, s.sbp[kData]));
    CHECK(tess_tensor_from_host(&yt, y, y_shape, 1, TESS_DTYPE_I64, world, s.sbp[kData]));
    const float loss = train_step(params, xt, yt);
    CHECK(tess_optimizer_step(opt));
    CHECK(tess_optimizer_zero_grad(opt));
    if (rank == 0) printf("step %d loss %.7f\n", step + 1, loss);
    tess_tensor_destroy(xt);
    tess_tensor_destroy(yt);
  }
  free(x);
  free(y);
  tess_optimizer_destroy(opt);
  for (int i = 0; i < 4; ++i) tess_tensor_destroy(params[i]);
  for (int i = 0; i < kLayouts; ++i) tess_nd_sbp_destroy(s.sbp[i]);
  tess_placement_destroy(world);
  CHECK(tess_runtime_finalize());
  return 0;
}
