package tessera

import (
	"reflect"
	"testing"
)

// f16 and bf16 as raw bits in a world of one rank. Expected bits by hand from the
// formats: f16 1, 2, 0.5, 3 are 0x3c00, 0x4000, 0x3800, 0x4200 and their doubles 2, 4,
// 1, 6 are 0x4000, 0x4400, 0x3c00, 0x4600; bf16 is float32's top half.
func TestHalfBitsRoundTripAndAdd(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		dtype       int32
		in, doubled []uint16
	}{
		{DTypeF16, []uint16{0x3c00, 0x4000, 0x3800, 0x4200}, []uint16{0x4000, 0x4400, 0x3c00, 0x4600}},
		{DTypeBF16, []uint16{0x3f80, 0x4000, 0x3f00, 0x4040}, []uint16{0x4000, 0x4080, 0x3f80, 0x40c0}},
	}
	for _, c := range cases {
		x, err := FromHostBits(c.in, []int64{4}, c.dtype, f.p, f.s0)
		if err != nil {
			t.Fatalf("%s: FromHostBits: %v", DTypeName(c.dtype), err)
		}
		defer x.Close()
		if got := must(ToHostBits(x)); !reflect.DeepEqual(got, c.in) {
			t.Errorf("%s: round trip %x, want %x", DTypeName(c.dtype), got, c.in)
		}
		sum := must(Add(x, x))
		defer sum.Close()
		if got := must(ToHostBits(sum)); !reflect.DeepEqual(got, c.doubled) {
			t.Errorf("%s: x + x is %x, want %x", DTypeName(c.dtype), got, c.doubled)
		}
	}
}

func TestHalfBitsBadInput(t *testing.T) {
	f := newFixture(t)
	_, err := FromHostBits([]uint16{1, 2}, []int64{2}, DTypeF32, f.p, f.s0)
	wantError(t, err, InvalidArgument, "FromHostBits: dtype f32 is not a 2-byte float (f16 or bf16)")
	_, err = FromHostBits([]uint16{1, 2}, []int64{3}, DTypeF16, f.p, f.s0)
	wantError(t, err, InvalidArgument, "FromHostBits: data has 2 elements but shape [3] needs 3")
	x := must(FromHost([]float32{1}, []int64{1}, f.p, f.s0))
	defer x.Close()
	_, err = ToHostBits(x)
	wantError(t, err, InvalidArgument, "ToHostBits: dtype f32 is not a 2-byte float (f16 or bf16)")
}
