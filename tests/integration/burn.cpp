// nf-burn SECONDS [CHILDREN [CHILD_SECONDS]]: a workload whose cost is known by construction. It
// spins until its own CPU clock (CLOCK_PROCESS_CPUTIME_ID) has counted SECONDS, so its user+system
// CPU time is SECONDS (plus a few microseconds of start-up) however busy the machine is; its wall
// time is at least that. With CHILDREN it first starts that many copies of itself, each burning
// CHILD_SECONDS (default SECONDS), and waits for them: the process tree then costs
// SECONDS + CHILDREN × CHILD_SECONDS of CPU. More processes than CPUs for a while, then fewer:
// its own processes wait for each other, with nothing else running.
//
// Before that, two known costs the kernel counts (harness/stats/README.md §3.14):
//   --sleeps K   K sleeps of 1 ms: K voluntary context switches
//   --pages N    N fresh 4 KiB pages (no huge pages) written once each: N minor page faults
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  long sleeps = 0, pages = 0;
  while (argc > 2 && (std::string(argv[1]) == "--sleeps" || std::string(argv[1]) == "--pages")) {
    (std::string(argv[1]) == "--sleeps" ? sleeps : pages) = std::atol(argv[2]);
    argv[2] = argv[0];
    argv += 2;
    argc -= 2;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: nf-burn [--sleeps K] [--pages N] SECONDS [CHILDREN [CHILD_SECONDS]]\n");
    return 2;
  }
  for (long i = 0; i < sleeps; ++i) {
    const timespec ms{0, 1000000};
    nanosleep(&ms, nullptr);
  }
  if (pages > 0) {
    const std::size_t bytes = static_cast<std::size_t>(pages) * 4096;
    void* area = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) return 3;
    madvise(area, bytes, MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; ++i) static_cast<volatile char*>(area)[i * 4096] = 1;
    munmap(area, bytes);
  }
  const double seconds = std::atof(argv[1]);
  const int children = argc > 2 ? std::atoi(argv[2]) : 0;
  const char* child_seconds = argc > 3 ? argv[3] : argv[1];
  for (int i = 0; i < children; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], child_seconds, static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  const double start = cpu_now();
  volatile unsigned long spin = 0;
  while (cpu_now() - start < seconds)
    for (int i = 0; i < 10000; ++i) spin = spin + 1;
  int status = 0;
  while (wait(&status) > 0) {
  }
  return 0;
}
