// The `tessera` command-line tool: `tessera explain ...` (see explain_command.h) and
// `tessera ops` (every registered op with its signature).
#include <iostream>
#include <string>
#include <vector>

#include "core/op/op_registry.h"
#include "tools/tessera_cli/explain_command.h"

namespace {

constexpr const char* kUsage = R"(usage: tessera COMMAND [ARGS...]

Commands:
  explain OP --placement P --input SPEC ...   explain OP's SBP signature inference
  ops                                         list the registered ops and their signatures

`tessera COMMAND --help` describes a command.
)";

int Ops() {
  const tessera::op::OpRegistry& registry = tessera::op::OpRegistry::Global();
  for (const std::string& name : registry.Names()) {
    std::cout << (*registry.Find(name))->Signature() << "\n";
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
  std::cerr << "tessera: unknown command \"" << command << "\"\n" << kUsage;
  return tessera::cli::kExitUsage;
}
