package tessera

// The topology the runtime found, against the launcher's hosts (see mpi_main_test.go):
// pretend hosts of TESSERA_RANKS_PER_HOST, else the hosts tools/multihost.sh states
// (ranks placed by block), else one host (plain mpirun or no mpirun).

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestMPITopology(t *testing.T) {
	rank, size := worldOf(t)
	perHost, pretend := size, int32(0)
	if v := os.Getenv("TESSERA_RANKS_PER_HOST"); v != "" {
		n, _ := strconv.Atoi(v)
		perHost, pretend = int32(n), int32(n)
	} else if v := os.Getenv("TESSERA_TEST_RANKS_PER_HOST"); v != "" {
		n, _ := strconv.Atoi(v)
		perHost = int32(n)
	}
	hosts := (size + perHost - 1) / perHost
	localSize := perHost
	if rest := size - rank/perHost*perHost; rest < localSize {
		localSize = rest
	}
	maxPerHost := perHost
	if size < maxPerHost {
		maxPerHost = size
	}
	got := must(GetTopology())
	if got.WorldSize != size || got.WorldRank != rank || got.HostCount != hosts ||
		got.HostIndex != rank/perHost || got.LocalRank != rank%perHost ||
		got.LocalSize != localSize || got.MaxRanksPerHost != maxPerHost ||
		got.PretendRanksPerHost != pretend {
		t.Fatalf("GetTopology() = %+v; want %d hosts of %d ranks (pretend %d), this rank %d on host %d",
			got, hosts, perHost, pretend, rank, rank/perHost)
	}
	for r := int32(0); r < size; r++ {
		host, local, err := RankHost(r)
		if err != nil || host != r/perHost || local != r%perHost {
			t.Errorf("RankHost(%d) = %d, %d, %v; want %d, %d", r, host, local, err, r/perHost, r%perHost)
		}
	}
	if _, _, err := RankHost(size); !errors.Is(err, ErrOutOfRange) ||
		!strings.Contains(err.Error(), "world_rank "+strconv.Itoa(int(size))) {
		t.Errorf("RankHost(%d) err = %v; want OutOfRange naming the rank", size, err)
	}
	text := must(TopologyString())
	plural := "s"
	if size == 1 {
		plural = ""
	}
	if want := strconv.Itoa(int(size)) + " rank" + plural + " on " + strconv.Itoa(int(hosts)) + " host"; !strings.HasPrefix(text, want) {
		t.Errorf("TopologyString() = %q; want it to start with %q", text, want)
	}
	name, _ := os.Hostname()
	if lines := strings.Split(text, "\n"); int(1+rank/perHost) >= len(lines) ||
		!strings.Contains(lines[1+rank/perHost], `"`+name+`"`) {
		t.Errorf("TopologyString() = %q; want host %d's line to name %q", text, rank/perHost, name)
	}
}
