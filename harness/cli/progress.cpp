#include "cli/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "stats/summary.hpp"
#include "text/text.hpp"

namespace noisefloor::cli {

struct Progress::Board {
  std::mutex mutex;
  bool live = false;
  std::vector<std::pair<std::string, std::string>> lines;  // host, its latest line
  std::size_t drawn = 0;                                   // lines of the block on screen

  static std::size_t columns() {
    winsize w{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 10) return w.ws_col - 1;
    return 79;
  }
  void clear() {
    if (live && drawn > 0) std::fprintf(stderr, "\033[%zuF\033[J", drawn);
    drawn = 0;
  }
  void draw() {
    if (!live) return;
    const std::size_t width = columns();
    for (const auto& [host, line] : lines)
      std::fprintf(stderr, "%s\n", text::terminal_safe(text::truncate(host + "  " + line, width)).c_str());
    drawn = lines.size();
    std::fflush(stderr);
  }
  void note(const std::string& line) {
    const std::lock_guard lock(mutex);
    clear();
    std::fprintf(stderr, "%s\n", text::terminal_safe(line).c_str());
    draw();
  }
  void update(const std::string& host, const std::string& line) {
    const std::lock_guard lock(mutex);
    for (auto& [h, l] : lines)
      if (h == host) l = line;
    if (live) {
      clear();
      draw();
    } else {
      std::fprintf(stderr, "%s\n", text::terminal_safe(fmt::format("[{}] {}", host, line)).c_str());
      std::fflush(stderr);
    }
  }
};

std::unique_ptr<pipeline::RunEvents> Progress::host(const std::string& name) {
  if (!board_) {
    end_line();
    board_ = std::make_shared<Board>();
    board_->live = live_ && !quiet_;
  }
  {
    const std::lock_guard lock(board_->mutex);
    board_->lines.emplace_back(name, "waiting");
  }
  auto child = std::make_unique<Progress>(quiet_, live_, false);  // no colour: lines are cut to the width
  child->board_ = board_;
  child->host_ = name;
  return child;
}

Progress::Progress(bool quiet, bool live, bool color)
    : quiet_(quiet), live_(live), color_(color), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { end_line(); }

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

void Progress::note(const std::string& line) {
  if (quiet_) return;
  if (board_) {
    board_->note(host_.empty() ? line : fmt::format("[{}] {}", host_, line));
    return;
  }
  end_line();
  std::fprintf(stderr, "%s\n", text::terminal_safe(line).c_str());
}

void Progress::condition_started(std::size_t index, std::size_t count, const model::Condition& c) {
  condition_index_ = index;
  condition_count_ = count;
  condition_ = c.name;
  // Announced once: an interleaved schedule comes back to it every turn.
  if (quiet_ || !announced_.insert(c.name).second) return;
  std::string what = c.is_idle() ? "idle host" : "";
  if (c.spinners) what += fmt::format("{} spinner(s)", c.spinners->count);
  if (c.container) what += std::string(what.empty() ? "" : ", ") + "container";
  if (!c.affinity.empty()) what += std::string(what.empty() ? "" : ", ") + "pinned";
  note(fmt::format("condition {}/{} {} ({}): starting", index + 1, count, c.name, what));
}

void Progress::condition_finished(std::size_t, const records::ConditionRecord&) {
  if (!quiet_) end_line();
}

void Progress::progress(const runner::ProgressCount& c, const records::Sample& latest) {
  count(latest);
  if (quiet_) return;
  // Not a terminal (a CI log): a line every few seconds at most, not one a sample, and the line
  // of a benchmark's last sample in its condition (its count and CV as they ended).
  const auto now = std::chrono::steady_clock::now();
  const bool last = c.benchmark_total > 0 && c.benchmark_done >= c.benchmark_total;
  if (!live_ && !board_ && !last && last_plain_ && now - *last_plain_ < kPlainEvery) return;
  if (!live_ && !board_) last_plain_ = now;
  const std::vector<double>& values = values_[{latest.condition, latest.name, latest.config, latest.variant}];
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // The rate of this session: samples of earlier sessions (a resumed run) took no time of it; the
  // time left waits for the whole run's size (the benchmarks of a condition are known once one
  // invocation printed them all).
  std::string left = "estimating";
  const std::size_t now_done = c.done > earlier_done_ ? c.done - earlier_done_ : 0;
  // The confirmation block stops when it is sure, at the latest at its cap: the time left is a bound.
  if (c.total_known && now_done > 0 && c.total >= c.done)
    left = (c.confirming ? "≤ ~" : "~") +
           text::clock(elapsed / static_cast<double>(now_done) * static_cast<double>(c.total - c.done));
  const auto& m = latest.metrics.front();
  const auto cv = running_cv(values);
  std::string cv_text = cv ? fmt::format("CV {:.1f}%", *cv) : "CV —";
  if (color_ && cv) {
    // The band's colour: green excellent, cyan acceptable, yellow noisy, red do not trust.
    const stats::Band band = stats::band_for_cv(cv);
    const char* code = band == stats::Band::excellent    ? "32"
                       : band == stats::Band::acceptable ? "36"
                       : band == stats::Band::noisy      ? "33"
                                                         : "31";
    cv_text = fmt::format("\033[{}m{}\033[0m", code, cv_text);
  }
  // Several benchmarks, or the confirmation block: the line names the one whose figures it shows,
  // and the whole run's count.
  std::string which;
  if (c.benchmarks > 1 || c.confirming) {
    std::string_view name = latest.name;
    if (name.starts_with("Benchmark") && name.size() > 9) name.remove_prefix(9);
    which =
        text::truncate(std::string(name) + (latest.variant.empty() ? "" : " [" + latest.variant + "]"), 28) +
        " ";
  }
  const std::string overall =
      c.benchmarks > 1 || c.confirming
          ? fmt::format(" · {}/{}{} samples", c.done, c.total_known ? "" : "≥", c.total)
          : "";
  show(fmt::format("[{}/{} {}] {}{}{}/{}{}{}  {} {}  {} {}  elapsed {}  left {}", condition_index_ + 1,
                   condition_count_, condition_, c.confirming ? "confirming " : "", which,
                   std::min(c.benchmark_done, c.benchmark_total), c.benchmark_total,
                   latest.warmup ? " warm-up" : "", overall, text::format_value(m.value), m.unit, cv_text,
                   sparkline(values, 12), text::clock(elapsed), left));
}

void Progress::count(const records::Sample& s) {
  if (!s.warmup) values_[{s.condition, s.name, s.config, s.variant}].push_back(s.metrics.front().value);
}

void Progress::resumed(const std::vector<records::Sample>& earlier) {
  for (const auto& s : earlier) count(s);
  for (const auto& [row, values] : values_) earlier_done_ += values.size();
  note(fmt::format("resuming: {} sample(s) from the run's earlier session(s) are kept", earlier.size()));
}

void Progress::show(const std::string& line) {
  if (board_) {
    board_->update(host_, line);
    return;
  }
  if (live_) {
    std::fprintf(stderr, "\r\033[K%s", text::terminal_safe(line).c_str());
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", text::terminal_safe(line).c_str());
  }
  std::fflush(stderr);
}

void Progress::end_line() {
  if (line_open_) {
    std::fputc('\n', stderr);
    line_open_ = false;
  }
}

}  // namespace noisefloor::cli
