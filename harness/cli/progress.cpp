#include "cli/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "report/table.hpp"

namespace noisefloor::cli {

std::string format_clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

ProgressObserver::ProgressObserver(results::RunDirectory& dir, const model::Experiment& experiment, bool quiet)
    : dir_(dir),
      experiment_(experiment),
      quiet_(quiet),
      live_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressObserver::~ProgressObserver() { end_line(); }

void ProgressObserver::sample(const model::Sample& s) { dir_.append_sample(s); }

void ProgressObserver::condition_started(std::size_t index, std::size_t count, const model::Condition& c) {
  condition_index_ = index;
  condition_count_ = count;
  condition_ = c.name;
  condition_done_ = 0;
  if (quiet_) return;
  std::string what = c.is_idle() ? "idle host" : "";
  if (c.spinners) what += fmt::format("{} spinner(s)", c.spinners->count);
  if (c.container) what += std::string(what.empty() ? "" : ", ") + "container";
  if (!c.affinity.empty()) what += std::string(what.empty() ? "" : ", ") + "pinned";
  end_line();
  std::fprintf(stderr, "condition %zu/%zu %s (%s): starting\n", index + 1, count, c.name.c_str(), what.c_str());
}

void ProgressObserver::condition_finished(std::size_t, const nlohmann::json&) {
  if (quiet_) return;
  end_line();
}

void ProgressObserver::progress(std::size_t done, std::size_t total, const model::Sample& latest) {
  if (quiet_) return;
  if (!latest.warmup) ++condition_done_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string left = "estimating";
  if (done > 0 && total >= done) left = "~" + format_clock(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
  const auto& m = latest.metrics.front();
  show(fmt::format("[{}/{} {}] sample {}/{}{}  {} {}  elapsed {}  left {}", condition_index_ + 1, condition_count_,
                   condition_, condition_done_, experiment_.benchmark.samples, latest.warmup ? " (warm-up)" : "",
                   report::format_value(m.value), m.unit, format_clock(elapsed), left));
}

void ProgressObserver::show(const std::string& line) {
  if (live_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void ProgressObserver::end_line() {
  if (line_open_) {
    std::fputc('\n', stderr);
    line_open_ = false;
  }
}

}  // namespace noisefloor::cli
