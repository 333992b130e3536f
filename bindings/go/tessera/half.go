package tessera

import (
	"runtime"
	"unsafe"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// f16 and bf16 tensors hold 2-byte floats; Go has no such type, so their data moves
// as raw bits, one uint16 per element (IEEE binary16 for DTypeF16, the top half of a
// float32 for DTypeBF16). Kernels compute them in float32 and round to nearest even
// on store (docs/dtypes.md).

func halfBytes(s []uint16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

func checkHalf(function string, dtype int32) error {
	if dtype != DTypeF16 && dtype != DTypeBF16 {
		return invalid("%s: dtype %s is not a 2-byte float (f16 or bf16)", function, DTypeName(dtype))
	}
	return nil
}

// FromHostBits is FromHost for f16 and bf16 (dtype DTypeF16 or DTypeBF16): data
// holds each element's raw bits. Collective.
func FromHostBits(data []uint16, shape []int64, dtype int32, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	if err := checkHalf("FromHostBits", dtype); err != nil {
		return nil, err
	}
	if n := elements(shape); int64(len(data)) != n {
		return nil, invalid("FromHostBits: data has %d elements but shape %v needs %d", len(data), shape, n)
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Tensor_from_host(out, halfBytes(data), shape, int(dtype), placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// ToHostBits is ToHost for an f16 or bf16 tensor: each element's raw bits.
// Collective.
func ToHostBits(t *Tensor) ([]uint16, error) {
	dtype, err := t.dtype()
	if err != nil {
		return nil, err
	}
	if err := checkHalf("ToHostBits", dtype); err != nil {
		return nil, err
	}
	n, err := t.NumElements()
	if err != nil {
		return nil, err
	}
	out := make([]uint16, n)
	err = capi.Tensor_to_host(halfBytes(out), t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return out, nil
}
