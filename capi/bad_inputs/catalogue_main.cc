// The catalogue of bad inputs (issue 16, item 8): runs every case of catalogue.h in a
// world of one rank and exits 1 if any gets another status, a message without its
// fragment, or an empty message (or, for a DLPack import, a deleter that did not run
// exactly once).
//
// `bad_input_catalogue --markdown` prints the table that docs/reliability.md holds
// between its "catalogue" markers, with the message each case actually got;
// //capi:bad_input_catalogue_doc_test fails when the two differ, so the document
// cannot drift from what the library says. tools/update_reliability_catalogue.sh
// rewrites the table.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

Fixture f;

namespace {

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> all;
    for (std::vector<Case> (*group)() :
         {&ValueCases, &TensorCases, &OpCases, &RunCases, &ServeCases, &AutogradCases,
          &CheckpointCases, &OptimCases}) {
      const std::vector<Case> some = group();
      all.insert(all.end(), some.begin(), some.end());
    }
    return all;
  }();
  return cases;
}

// Builds the fixture; false (with a message) when a valid call fails.
bool MakeFixture() {
  auto ok = [](tess_status st, const char* what) {
    if (st == TESS_OK) return true;
    std::fprintf(stderr, "fixture: %s failed: %s\n", what, tess_last_error_message());
    return false;
  };
  for (int i = 0; i < 64; ++i) f.data[i] = static_cast<float>(i);
  const int64_t shape32[] = {3, 2};
  const int64_t shape4[] = {4};
  const int32_t ints[6] = {0, 1, 0, 1, 0, 1};
  const double doubles[6] = {0, 1, 2, 3, 4, 5};
  return ok(tess_placement_parse(&f.p, "cpu:[0]"), "placement cpu:[0]") &&
         ok(tess_placement_parse(&f.p2d, "cpu:[[0]]"), "placement cpu:[[0]]") &&
         ok(tess_nd_sbp_parse(&f.b, "B"), "B") && ok(tess_nd_sbp_parse(&f.s0, "S(0)"), "S(0)") &&
         ok(tess_nd_sbp_parse(&f.s1, "S(1)"), "S(1)") &&
         ok(tess_nd_sbp_parse(&f.s2, "S(2)"), "S(2)") &&
         ok(tess_nd_sbp_parse(&f.bb, "(B, B)"), "(B, B)") &&
         ok(tess_nd_sbp_parse(&f.psum, "P"), "P") &&
         ok(tess_tensor_from_host(&f.x, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b), "x") &&
         ok(tess_tensor_from_host(&f.y, f.data, shape32, 2, TESS_DTYPE_F32, f.p, f.b), "y") &&
         ok(tess_tensor_from_host(&f.v, f.data, shape4, 1, TESS_DTYPE_F32, f.p, f.b), "v") &&
         ok(tess_tensor_from_host(&f.xi, ints, kShape23, 2, TESS_DTYPE_I32, f.p, f.b), "xi") &&
         ok(tess_tensor_from_host(&f.xd, doubles, kShape23, 2, TESS_DTYPE_F64, f.p, f.b), "xd") &&
         ok(tess_op_call_create(&f.add, "add"), "op call add") &&
         ok(tess_op_call_create(&f.relu, "relu"), "op call relu") &&
         ok(tess_op_call_create(&f.bare_relu, "relu"), "op call relu (bare)") &&
         ok(tess_op_call_add_input(f.relu, kShape23, 2, TESS_DTYPE_F32, f.p, f.b), "relu input") &&
         ok(tess_op_call_infer(&f.inferred, f.relu), "infer relu") &&
         ok(tess_program_create(&f.program), "program") &&
         ok(tess_program_add_input(&f.program_input, f.program, "a", kShape23, 2, TESS_DTYPE_F32,
                                   f.p, f.b),
            "program input") &&
         [] {
           int64_t first = -1;
           size_t n = 0;
           const int64_t ids[] = {f.program_input};
           if (tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 1) == TESS_OK &&
               tess_program_mark_output(f.program, first) == TESS_OK) {
             return true;
           }
           std::fprintf(stderr, "fixture: program op failed: %s\n", tess_last_error_message());
           return false;
         }() &&
         ok(tess_plan_compile(&f.plan, f.program, nullptr), "plan") &&
         ok(tess_plan_instantiate(&f.instance, f.plan), "plan instance") &&
         ok(tess_boxing_plan_create(&f.boxing, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s0),
            "boxing plan") &&
         ok(tess_bucketed_allreducer_create(&f.reducer, nullptr), "bucketed all-reducer") &&
         ok(tess_server_create(&f.server, nullptr), "server") &&
         [] {
           int32_t id = -1;
           return tess_server_add_plan(&id, f.server, f.plan, nullptr) == TESS_OK;
         }() &&
         ok(tess_serve_request_create(&f.request, f.server, 0), "serve request");
}

void DestroyFixture() {
  tess_serve_request_destroy(f.request);
  tess_server_destroy(f.server);
  tess_bucketed_allreducer_destroy(f.reducer);
  tess_boxing_plan_destroy(f.boxing);
  tess_plan_instance_destroy(f.instance);
  tess_plan_destroy(f.plan);
  tess_program_destroy(f.program);
  tess_infer_result_destroy(f.inferred);
  tess_op_call_destroy(f.relu);
  tess_op_call_destroy(f.bare_relu);
  tess_op_call_destroy(f.add);
  for (tess_tensor* t : {f.x, f.y, f.v, f.xi, f.xd}) tess_tensor_destroy(t);
  for (tess_nd_sbp* s : {f.b, f.s0, f.s1, f.s2, f.bb, f.psum}) tess_nd_sbp_destroy(s);
  tess_placement_destroy(f.p);
  tess_placement_destroy(f.p2d);
}

const char* CodeName(tess_status st) { return tess_status_string(st); }

// Markdown-safe: pipes escaped, newlines as spaces.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace
}  // namespace tessera::bad_inputs

int main(int argc, char** argv) {
  using namespace tessera::bad_inputs;  // NOLINT: the catalogue's own names
  const bool markdown = argc > 1 && std::strcmp(argv[1], "--markdown") == 0;
  // TESS_CATALOGUE_TRACE=1 names each case before it runs (to find one that crashes).
  const bool trace = std::getenv("TESS_CATALOGUE_TRACE") != nullptr;
  if (tess_runtime_init() != TESS_OK) {
    std::fprintf(stderr, "tess_runtime_init: %s\n", tess_last_error_message());
    return 1;
  }
  if (!MakeFixture()) return 1;
  int failures = 0;
  int index = 0;
  if (markdown) {
    std::printf("| # | function | bad input | status | message |\n");
    std::printf("|---|---|---|---|---|\n");
  }
  for (const Case& c : Cases()) {
    ++index;
    const int deletions_before = dlpack_deletions;
    const bool dlpack = std::strstr(c.function, "from_dlpack") != nullptr;
    if (trace) std::fprintf(stderr, "case %d: %s (%s)\n", index, c.function, c.input);
    const tess_status st = c.call();
    const std::string message = st == TESS_OK ? "" : tess_last_error_message();
    std::string problem;
    if (st != c.expected) {
      problem = std::string("expected ") + CodeName(c.expected) + ", got " + CodeName(st);
    } else if (message.empty()) {
      problem = "empty message";
    } else if (message.find(c.fragment) == std::string::npos) {
      problem = std::string("message lacks \"") + c.fragment + "\"";
    } else if (dlpack && std::strstr(c.input, "is NULL") == nullptr &&
               dlpack_deletions != deletions_before + 1) {
      // from_dlpack owns `local` on failure too: its deleter runs exactly once.
      problem = "the DLPack deleter ran " + std::to_string(dlpack_deletions - deletions_before) +
                " times, not once";
    }
    if (!problem.empty()) {
      ++failures;
      std::fprintf(stderr, "case %d, %s (%s): %s; message: %s\n", index, c.function, c.input,
                   problem.c_str(), message.c_str());
    }
    if (markdown) {
      std::printf("| %d | `%s` | %s | %s | %s |\n", index, c.function, Cell(c.input).c_str(),
                  CodeName(st), Cell(message).c_str());
    }
  }
  DestroyFixture();
  const int cases = static_cast<int>(Cases().size());
  std::fprintf(stderr, "bad_input_catalogue: %d cases, %d as promised, %d not\n", cases,
               cases - failures, failures);
  if (cases < 150) {
    std::fprintf(stderr, "the catalogue must hold at least 150 cases (issue 16, item 8)\n");
    return 1;
  }
  tess_runtime_finalize();
  return failures == 0 ? 0 : 1;
}
