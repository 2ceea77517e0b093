// ratio is a deterministic CPU-bound workload whose cost is known up to a factor: -loops=3 runs
// exactly three times the work of -loops=1 (the same xorshift chain, no memory traffic, no
// allocation, no system calls while timing). It times the loop itself and prints one line in Go
// benchmark format, so noisefloor reads it like any Go benchmark:
//
//	BenchmarkRatioLoop	1	<nanoseconds> ns/op
//
// The true ratio of -loops=3 to -loops=1 is 3.000 by instruction count (scripts/ratio-truth.sh
// counts the timed region under valgrind: 2.999999 with the timing calls, the loop exactly 3);
// what a harness reports beyond that is a measure of how well it cancels the noise of the
// machine.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

// threadCPU is the CPU time consumed by the calling OS thread (RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "ratio: getrusage:", err)
		os.Exit(1)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// chain runs n dependent xorshift64 steps: each needs the previous result, so the CPU cannot
// overlap them and the cost is linear in n.
func chain(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	loops := flag.Int("loops", 1, "how many times to run the work")
	work := flag.Int("work", 50_000_000, "xorshift steps per loop")
	// noisefloor adds -test.count=N to gotest-format commands; one run is one sample.
	count := flag.Int("test.count", 1, "samples to print")
	flag.Parse()
	if *loops < 1 || *work < 1 || *count < 1 {
		fmt.Fprintln(os.Stderr, "ratio: -loops, -work and -test.count must be at least 1")
		os.Exit(2)
	}
	// One OS thread for the whole measurement, so its CPU time is the loop's.
	runtime.LockOSThread()
	x := uint64(88172645463325252)
	for c := 0; c < *count; c++ {
		startCPU := threadCPU()
		start := time.Now()
		for l := 0; l < *loops; l++ {
			x = chain(x, *work)
		}
		elapsed := time.Since(start)
		cpu := threadCPU() - startCPU
		fmt.Printf("BenchmarkRatioLoop\t1\t%d ns/op\t%d cpu-ns/op\n", elapsed.Nanoseconds(), cpu.Nanoseconds())
	}
	// Print the result so the loop cannot be optimised away.
	fmt.Fprintf(os.Stderr, "checksum %x\n", x)
}
