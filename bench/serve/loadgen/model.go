package main

// The model of serve_spec.md (docs/serving.md, "The example model"), written here
// from the spec and independently of Tessera: y = relu(x W1) W2 with x [rows, 16],
// W1 [16, 64], W2 [64, 8], weights drawn from splitmix64(seed). The reference is
// computed in float64 from the f32 weights and inputs.

import "math"

const (
	inWidth     = 16
	hiddenWidth = 64
	outWidth    = 8
	// maxRows is the most rows a request may hold (the plan's capacity).
	maxRows = 64
)

// splitMix64 is the generator of the weights (and, with other states, of the inputs).
type splitMix64 struct{ state uint64 }

func (g *splitMix64) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// unit is the top 24 bits of the next draw as a value in [0, 1), exact in f32.
func (g *splitMix64) unit() float32 {
	return float32(g.next()>>40) / (1 << 24)
}

// model holds the weights of one seed, row-major.
type model struct {
	w1 [inWidth * hiddenWidth]float32
	w2 [hiddenWidth * outWidth]float32
}

func newModel(seed uint64) *model {
	m := &model{}
	g := splitMix64{state: seed}
	for i := range m.w1 {
		m.w1[i] = g.unit() - 0.5
	}
	for i := range m.w2 {
		m.w2[i] = g.unit() - 0.5
	}
	return m
}

// predict returns the outputs of the rows of x (each inWidth wide).
func (m *model) predict(x [][]float32) [][]float64 {
	out := make([][]float64, len(x))
	var h [hiddenWidth]float64
	for r, row := range x {
		for j := 0; j < hiddenWidth; j++ {
			s := 0.0
			for k := 0; k < inWidth; k++ {
				s += float64(row[k]) * float64(m.w1[k*hiddenWidth+j])
			}
			h[j] = math.Max(s, 0)
		}
		y := make([]float64, outWidth)
		for j := 0; j < outWidth; j++ {
			s := 0.0
			for k := 0; k < hiddenWidth; k++ {
				s += h[k] * float64(m.w2[k*outWidth+j])
			}
			y[j] = s
		}
		out[r] = y
	}
	return out
}

// inputs returns the rows of request `request` of client `client`: values in
// [-1, 1), exact in f32, from splitmix64 started at a state mixed from the seed, the
// client and the request, so every run with the same flags sends the same bodies.
func inputs(seed uint64, client, request, rows int) [][]float32 {
	mix := splitMix64{state: seed ^ 0x5EED5EED5EED5EED}
	mix.state += uint64(client) * 0xD1B54A32D192ED03
	mix.state ^= mix.next()
	mix.state += uint64(request) * 0x8CB92BA72F3D8DD7
	g := splitMix64{state: mix.next()}
	x := make([][]float32, rows)
	for r := range x {
		x[r] = make([]float32, inWidth)
		for k := range x[r] {
			x[r][k] = 2*g.unit() - 1
		}
	}
	return x
}

// tolerance is the check of serve_spec.md's shared test: 1e-4 relative, with an
// absolute floor of 1e-4 near zero (|got - want| <= 1e-4 * (1 + |want|)).
const tolerance = 1e-4

func agrees(got, want float64) bool {
	return math.Abs(got-want) <= tolerance*(1+math.Abs(want))
}
