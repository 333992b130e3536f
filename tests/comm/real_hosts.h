// The real hosts the ranks of a test run on, as its launcher states them, independently
// of the code under test (which finds hosts with MPI_COMM_TYPE_SHARED): tools/multihost.sh
// exports TESSERA_TEST_HOSTS and TESSERA_TEST_RANKS_PER_HOST to every rank and places
// ranks by block (ranks 0..N-1 on the first host, ...); a plain mpirun is one host.
#ifndef TESSERA_TESTS_COMM_REAL_HOSTS_H_
#define TESSERA_TESTS_COMM_REAL_HOSTS_H_

#include <cstdint>
#include <cstdlib>

namespace tessera::comm {

struct RealHosts {
  int32_t hosts = 1;
  int32_t ranks_per_host = 1;
};

inline RealHosts RealHostsOfTest(int32_t world_size) {
  const char* hosts = std::getenv("TESSERA_TEST_HOSTS");
  const char* per_host = std::getenv("TESSERA_TEST_RANKS_PER_HOST");
  if (hosts == nullptr || per_host == nullptr) return {1, world_size};
  return {static_cast<int32_t>(std::atoi(hosts)), static_cast<int32_t>(std::atoi(per_host))};
}

}  // namespace tessera::comm

#endif  // TESSERA_TESTS_COMM_REAL_HOSTS_H_
