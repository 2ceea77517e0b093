// A program whose instruction count is known by construction: `sim_loop N` runs a loop of one
// dec and one jnz N times (2N instructions), then exits; start-up and exit add a fixed number
// that does not depend on N. The simulated-metric tests count it at two values of N.
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  if (n < 1) return 2;
  __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
  return 0;
}
