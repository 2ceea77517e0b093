// nf-noop: the smallest program there is — it starts and exits 0 with one system call, without a C
// library or its start-up code. noisefloor times it to know what starting and waiting for a
// command costs (the launcher overhead of `format: command`): on the host it is started through
// the same launcher as the benchmark, in a container the probe starts /noisefloor/noop the way it
// starts the benchmark. Built with -nostdlib -static; embedded in noisefloor (image/embedded.hpp).
#if defined(__x86_64__)
extern "C" [[noreturn]] __attribute__((naked)) void _start() {
  __asm__ volatile(
      "mov $60, %eax\n"  // exit
      "xor %edi, %edi\n"
      "syscall\n");
}
#elif defined(__aarch64__)
extern "C" [[noreturn]] __attribute__((naked)) void _start() {
  __asm__ volatile(
      "mov x8, #93\n"  // exit
      "mov x0, #0\n"
      "svc #0\n");
}
#else
#error "nf-noop: add the exit system call of this architecture"
#endif
