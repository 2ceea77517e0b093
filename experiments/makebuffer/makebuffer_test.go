package makebuffer

import "testing"

// sink keeps benchmark results reachable so the compiler cannot prove them dead.
var sink []byte

// BenchmarkMakeBuffer_Correct measures one 64-byte heap allocation per op (64 B/op, 1 allocs/op):
// the result is kept in a local and published to the package-level sink after the loop, so the
// compiler must perform every allocation, and the store happens outside the timed hot path.
func BenchmarkMakeBuffer_Correct(b *testing.B) {
	b.ReportAllocs()
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = makeBuffer(64)
	}
	sink = buf
}

// BenchmarkMakeBuffer_DCE is the lying sibling from the demo: the result is discarded, so a
// compiler that inlines makeBuffer and sees the constant size can delete the allocation and
// measure an empty loop (0 allocs/op, a fraction of a nanosecond). Go 1.19 inlines the call but
// keeps the allocation ("make([]byte, n) escapes to heap ... (non-constant size)" under
// -gcflags=-m=2), so there it still reports 64 B/op, 1 allocs/op: whether a benchmark lies
// depends on the toolchain, which is why the Go version must be recorded.
func BenchmarkMakeBuffer_DCE(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		makeBuffer(64)
	}
}

func TestMakeBuffer(t *testing.T) {
	for _, n := range []int{0, 1, 64, 4096} {
		if got := len(makeBuffer(n)); got != n {
			t.Errorf("len(makeBuffer(%d)) = %d, want %d", n, got, n)
		}
	}
}
