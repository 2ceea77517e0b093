// Package makebuffer is the benchmark replayed by `make bench-docker`: one honest benchmark and
// one that the compiler optimizes away (dead-code elimination), from the "Why Your Go Benchmarks
// Are Lying" demo.
package makebuffer

// makeBuffer returns a zeroed slice of n bytes. It is small enough to be inlined, which is what
// lets the compiler delete it entirely when its result is unused.
func makeBuffer(n int) []byte {
	return make([]byte, n)
}
