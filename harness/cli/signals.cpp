#include "cli/signals.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "model/exit_status.hpp"
#include "process/process.hpp"

namespace noisefloor::cli {
namespace {

std::atomic<int> g_signal{0};    // the first stop request's signal
std::atomic<int> g_requests{0};  // how many stop requests arrived
std::atomic<bool> g_done{false};
int g_wake[2] = {-1, -1};  // the handler tells the stop-now thread through this pipe

// The first SIGINT/SIGTERM/SIGHUP only sets a flag: the runner notices it, stops what it started
// and unwinds through the RAII guards, so nothing is left behind. A second one means "stop now":
// see stop_now_watch.
extern "C" void on_signal(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  g_requests.fetch_add(1);
  process::notify_stop();
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &byte, 1);
}

// After a second stop request, the cleanup still under way (removing a container, waiting for a
// benchmark's tree to end) gets 2 s; then noisefloor exits at once. What it started on the host
// dies with it (spinners by their death signal, the benchmark's tree by its probe, which sees
// noisefloor's pipe close); a container's probe stops the benchmark when noisefloor's stream
// closes, so at most a stopped container remains, and `noisefloor gc` removes it.
void stop_now_watch() {
  int seen = 0;
  char byte;
  while (::read(g_wake[0], &byte, 1) == 1)
    if (++seen >= 2) break;
  if (seen < 2) return;
  for (int i = 0; i < 40 && !g_done.load(); ++i) ::usleep(50'000);
  if (g_done.load()) return;
  static const char kMessage[] =
      "\nnoisefloor: stopped at once (asked twice): the cleanup still under way was cut short. The samples "
      "measured so far are kept; processes it started end with it; a container of this run may be left "
      "(stopped): `noisefloor gc` removes it.\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(model::code(model::ExitStatus::interrupted));
}

}  // namespace

void install_signal_handlers() {
  if (::pipe2(g_wake, O_CLOEXEC) == 0) std::thread(stop_now_watch).detach();
  process::arm_stop_notifications();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

int stop_signal() { return g_signal.load(); }

void mark_done() { g_done.store(true); }

}  // namespace noisefloor::cli
