#include "cli/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "report/table.hpp"
#include "stats/summary.hpp"

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
      start_(std::chrono::steady_clock::now()),
      // Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
      color_(live_ && std::getenv("NO_COLOR") == nullptr) {}

std::string sparkline(const std::vector<double>& values, std::size_t width) {
  static const char* const kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (values.empty()) return "";
  const std::size_t from = values.size() > width ? values.size() - width : 0;
  const auto [lo, hi] = std::minmax_element(values.begin() + static_cast<std::ptrdiff_t>(from), values.end());
  std::string out;
  for (std::size_t i = from; i < values.size(); ++i) {
    const double span = *hi - *lo;
    const int level = span > 0 ? static_cast<int>(std::lround((values[i] - *lo) / span * 7)) : 3;
    out += kBars[std::clamp(level, 0, 7)];
  }
  return out;
}

std::optional<double> running_cv(const std::vector<double>& v) {
  if (v.size() < 2) return std::nullopt;
  const double m = stats::mean(v);
  if (!(m > 0)) return std::nullopt;
  return 100 * std::sqrt(stats::sample_variance(v, m)) / m;
}

ProgressObserver::~ProgressObserver() { end_line(); }

void ProgressObserver::sample(const model::Sample& s) { dir_.append_sample(s); }

void ProgressObserver::condition_started(std::size_t index, std::size_t count, const model::Condition& c) {
  condition_index_ = index;
  condition_count_ = count;
  condition_ = c.name;
  condition_done_ = 0;
  values_.clear();
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
  if (first_benchmark_.empty()) first_benchmark_ = latest.benchmark;
  const bool counted = !latest.warmup && latest.benchmark == first_benchmark_;
  if (counted) {
    ++condition_done_;
    values_.push_back(latest.metrics.front().value);
  }
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string left = "estimating";
  if (done > 0 && total >= done)
    left = "~" + format_clock(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
  const auto& m = latest.metrics.front();
  const auto cv = running_cv(values_);
  std::string cv_text = cv ? fmt::format("CV {:.1f}%", *cv) : "CV —";
  if (color_ && cv) {
    // The band's colour: green excellent, cyan acceptable, yellow noisy, red do not trust.
    const char* code = *cv <= 2 ? "32" : *cv <= 5 ? "36" : *cv <= 10 ? "33" : "31";
    cv_text = fmt::format("\033[{}m{}\033[0m", code, cv_text);
  }
  const std::size_t per_condition = experiment_.adaptive ? static_cast<std::size_t>(experiment_.adaptive->max_samples)
                                                         : static_cast<std::size_t>(experiment_.benchmark.samples);
  show(fmt::format("[{}/{} {}] {}/{}{}  {} {}  {} {}  elapsed {}  left {}", condition_index_ + 1, condition_count_, condition_,
                   condition_done_, per_condition, latest.warmup ? " warm-up" : "", report::format_value(m.value),
                   m.unit, cv_text, sparkline(values_, 12), format_clock(elapsed), left));
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
