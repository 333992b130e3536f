// The `tessera` command-line tool: `tessera explain ...` (see explain_command.h),
// `tessera ops` (every registered op with its signature) and `tessera topology` (the
// hosts the runtime finds, run under mpirun like any Tessera program).
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "core/op/op_registry.h"
#include "tessera/tessera.h"
#include "tools/tessera_cli/explain_command.h"

namespace {

constexpr const char* kUsage = R"(usage: tessera COMMAND [ARGS...]

Commands:
  explain OP --placement P --input SPEC ...   explain OP's SBP signature inference
  ops                                         list the registered ops and their signatures
  topology                                    print the hosts the ranks run on (under mpirun)

`tessera COMMAND --help` describes a command.
)";

int Ops() {
  const tessera::op::OpRegistry& registry = tessera::op::OpRegistry::Global();
  for (const std::string& name : registry.Names()) {
    std::cout << (*registry.Find(name))->Signature() << "\n";
  }
  return 0;
}

constexpr const char* kTopologyUsage =
    R"(usage: tessera topology   (under mpirun: mpirun -np N tessera topology)

Starts the runtime on every rank and prints, from rank 0, the hosts it found: ranks that
share memory (MPI_COMM_TYPE_SHARED) form a host, unless TESSERA_RANKS_PER_HOST makes
pretend hosts; a line per host with its name and ranks, and each rank's GPU when ranks
drive one. Without mpirun: one rank on this host.
)";

// Prints tess_runtime_topology_string from rank 0; every rank must run it.
int Topology() {
  if (tess_runtime_init() != TESS_OK) {
    std::cerr << "tessera topology: " << tess_last_error_message() << "\n";
    return 1;
  }
  int32_t rank = 0;
  tess_runtime_world_rank(&rank);
  if (rank == 0) std::cout << tess_runtime_topology_string() << std::flush;
  if (tess_runtime_finalize() != TESS_OK) {
    std::cerr << "tessera topology: " << tess_last_error_message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "tessera: missing a command\n" << kUsage;
    return tessera::cli::kExitUsage;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "explain") return tessera::cli::RunExplain(args, std::cout, std::cerr);
  if (command == "ops") {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
      std::cout << "usage: tessera ops\n\nLists every registered op with its signature.\n";
      return 0;
    }
    if (!args.empty()) {
      std::cerr << "tessera ops: unexpected argument \"" << args[0] << "\"\nusage: tessera ops\n";
      return tessera::cli::kExitUsage;
    }
    return Ops();
  }
  if (command == "topology") {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
      std::cout << kTopologyUsage;
      return 0;
    }
    if (!args.empty()) {
      std::cerr << "tessera topology: unexpected argument \"" << args[0]
                << "\"\nusage: tessera topology   (under mpirun: mpirun -np N tessera topology)\n";
      return tessera::cli::kExitUsage;
    }
    return Topology();
  }
  std::cerr << "tessera: unknown command \"" << command << "\"\n" << kUsage;
  return tessera::cli::kExitUsage;
}
