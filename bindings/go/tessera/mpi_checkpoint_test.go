package tessera

// Checkpoints on every rank of the mpirun world (1-4 ranks): SaveCheckpoint,
// ReadCheckpointIndex, LoadCheckpoint into other layouts (values compared with the
// slices saved), the shape/dtype check, and a corrupted shard returned as ErrDataLoss
// on every rank, naming the file.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkpointDir is a directory every rank sees: Bazel's TEST_TMPDIR, which mpirun
// passes to every rank.
func checkpointDir(t *testing.T, name string) string {
	t.Helper()
	base := os.Getenv("TEST_TMPDIR")
	if base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, name)
}

func barrier(t *testing.T) {
	t.Helper()
	if err := AllReduce(make([]int32, 1), ReduceOpSum, nil, AllReduceFlat); err != nil {
		t.Fatal(err)
	}
}

func TestMPICheckpoint(t *testing.T) {
	rank, size := worldOf(t)
	dir := checkpointDir(t, "go_ck")
	world, _ := onWorld(size, broadcast).open(t)
	nd := func(text string) *NdSbp {
		n := must(ParseNdSbp(text))
		t.Cleanup(n.Close)
		return n
	}
	w := quarters[float64](35, 1)
	step := []int64{9}
	tw := must(FromHost(w, []int64{7, 5}, world, nd("S(0)")))
	defer tw.Close()
	ts := must(FromHost(step, []int64{}, world, nd("B")))
	defer ts.Close()
	if err := SaveCheckpoint(dir, []NamedTensor{{"w", tw}, {"step", ts}}); err != nil {
		t.Fatal(err)
	}

	entries, err := ReadCheckpointIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	shards := int64(size)
	if shards > 7 {
		shards = 7
	}
	want := []CheckpointEntry{
		{Name: "w", Shape: []int64{7, 5}, DType: "f64", Placement: world.String(), NdSbp: "S(0)",
			NumShards: shards},
		{Name: "step", Shape: []int64{}, DType: "i64", Placement: world.String(), NdSbp: "B",
			NumShards: 1},
	}
	if !reflect.DeepEqual(entries, want) {
		t.Errorf("ReadCheckpointIndex = %+v, want %+v", entries, want)
	}

	for _, sbp := range []string{"S(0)", "S(1)", "B", "P"} {
		got := must(LoadCheckpoint(dir, "w", world, nd(sbp)))
		if n := must(got.NdSbp()); n.String() != sbp {
			t.Errorf("loaded as %s but holds %s", sbp, n)
		}
		if v := must(ToHost[float64](got)); !reflect.DeepEqual(v, w) {
			t.Errorf("w as %s = %v, want %v", sbp, v, w)
		}
		got.Close()
	}
	last := must(ParsePlacement(fmt.Sprintf("cpu:[%d]", size-1)))
	defer last.Close()
	s := must(LoadCheckpointChecked(dir, "step", last, nd("B"), []int64{}, "i64"))
	if v := must(ToHost[int64](s)); !reflect.DeepEqual(v, step) {
		t.Errorf("step = %v, want %v", v, step)
	}
	s.Close()

	expectErr := func(what string, err error, code error, text string) {
		t.Helper()
		if !errors.Is(err, code) || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: got %v, want %v containing %q", what, err, code, text)
		}
	}
	_, err = LoadCheckpoint(dir, "nope", world, nd("B"))
	expectErr("unknown name", err, ErrNotFound, `has no tensor "nope"`)
	_, err = LoadCheckpointChecked(dir, "w", world, nd("B"), []int64{5, 7}, "f64")
	expectErr("shape mismatch", err, ErrInvalidArgument, "not the shape [5,7] asked for")
	_, err = ReadCheckpointIndex(checkpointDir(t, "go_absent"))
	expectErr("no checkpoint", err, ErrNotFound, "missing checkpoint index")

	// One flipped byte in the first tensor's data ("w" comes first in every file that
	// holds it) of the last rank's shard: every rank gets the error.
	shard := filepath.Join(dir, fmt.Sprintf("rank-%05d.safetensors", size-1))
	if rank == 0 {
		b, err := os.ReadFile(shard)
		if err != nil {
			t.Fatal(err)
		}
		header := int64(0)
		for i := 7; i >= 0; i-- {
			header = header<<8 | int64(b[i])
		}
		b[8+header] ^= 0x40
		if err := os.WriteFile(shard, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	barrier(t)
	_, err = LoadCheckpoint(dir, "w", world, nd("S(0)"))
	expectErr("corrupt shard", err, ErrDataLoss, `corrupt shard of tensor "w" in `+shard)
}
