#include "fingerprint/noise_probe.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "model/errors.hpp"

namespace noisefloor::fingerprint {
namespace {

double now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One block of the calibrated loop: a dependent xorshift64 chain the compiler cannot shorten.
[[gnu::noinline]] std::uint64_t loop_block(std::uint64_t x) {
  for (std::uint64_t i = 0; i < kNoiseBlockIterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

// The thread's run-queue delay so far (second field of /proc/thread-self/schedstat), in seconds.
std::optional<double> run_delay(std::string& why) {
  std::ifstream in("/proc/thread-self/schedstat");
  unsigned long long run = 0, wait = 0;
  if (in >> run >> wait) return static_cast<double>(wait) * 1e-9;
  why =
      "run-queue delay: /proc/thread-self/schedstat could not be read (a kernel without CONFIG_SCHEDSTATS?)";
  return std::nullopt;
}

struct Steal {
  double seconds = 0;
  int cpus = 0;
};

// The steal of all CPUs so far (/proc/stat's aggregate "cpu" line, 8th value) and how many CPUs.
std::optional<Steal> steal(std::string& why) {
  std::ifstream in("/proc/stat");
  if (!in) {
    why = fmt::format("steal: /proc/stat: {}", std::strerror(errno));
    return std::nullopt;
  }
  const long hz = ::sysconf(_SC_CLK_TCK);
  Steal s;
  bool total = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu", 0) != 0) break;
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream fields(line.substr(4));
      unsigned long long v[8] = {};
      for (auto& x : v) fields >> x;
      if (!fields || hz <= 0) break;
      s.seconds = static_cast<double>(v[7]) / static_cast<double>(hz);
      total = true;
    } else {
      ++s.cpus;
    }
  }
  if (!total || s.cpus == 0) {
    why = "steal: /proc/stat has no readable \"cpu\" line";
    return std::nullopt;
  }
  return s;
}

std::optional<std::int64_t> involuntary_switches() {
  rusage u{};
  if (::getrusage(RUSAGE_THREAD, &u) != 0) return std::nullopt;
  return u.ru_nivcsw;
}

}  // namespace

NoiseProfile measure_noise(model::Seconds duration, const model::Cancelled& cancelled) {
  const auto check = [&] {
    if (cancelled && cancelled()) throw Interrupted();
  };
  NoiseReadings r;
  std::string why_steal, why_delay;
  const std::optional<Steal> steal0 = steal(why_steal);
  const double start = now();
  const double loop_for = 0.8 * duration.count();
  const double sleep_for = duration.count() - loop_for;

  const std::optional<double> delay0 = run_delay(why_delay);
  const std::optional<std::int64_t> switches0 = involuntary_switches();
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  const double loop_start = now();
  double t = loop_start;
  // At least two blocks, so that there is a spread.
  while (r.block_seconds.size() < 2 || t - loop_start < loop_for) {
    check();
    x = loop_block(x);
    const double after = now();
    r.block_seconds.push_back(after - t);
    t = after;
  }
  r.loop_seconds = t - loop_start;
  const std::optional<double> delay1 = run_delay(why_delay);
  const std::optional<std::int64_t> switches1 = involuntary_switches();
  asm volatile("" : : "r"(x));
  if (delay0 && delay1) r.run_delay_seconds = *delay1 - *delay0;
  if (switches0 && switches1) r.involuntary_switches = *switches1 - *switches0;

  const timespec request{0, static_cast<long>(kNoiseSleepSeconds * 1e9)};
  const double sleep_start = now();
  while (now() - sleep_start < sleep_for) {
    check();
    const double before = now();
    while (::clock_nanosleep(CLOCK_MONOTONIC, 0, &request, nullptr) == EINTR) check();
    r.sleep_seconds.push_back(now() - before);
  }
  r.seconds = now() - start;
  const std::optional<Steal> steal1 = steal(why_steal);
  if (steal0 && steal1) {
    r.steal_seconds = steal1->seconds - steal0->seconds;
    r.cpus = steal1->cpus;
  }
  if (!why_delay.empty()) r.unknown.push_back(why_delay);
  if (!why_steal.empty()) r.unknown.push_back(why_steal);
  return summarize_noise(r);
}

}  // namespace noisefloor::fingerprint
