#include "report/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace noisefloor::report {
namespace {

constexpr const char* kDash = "—";

std::string opt(const std::optional<double>& v, int decimals = 2) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string(kDash);
}

std::string flags_of(const Row& r) {
  std::vector<std::string> f;
  int outliers = 0;
  for (auto o : r.summary.outliers) outliers += o != stats::Outlier::none;
  if (outliers) f.push_back(fmt::format("{} outlier{}", outliers, outliers == 1 ? "" : "s"));
  if (r.summary.drift) f.push_back("drift");
  if (r.summary.shape) f.push_back("shape");
  if (r.summary.n < 2) f.push_back("n<2");
  return f.empty() ? "" : fmt::format("{}", fmt::join(f, ", "));
}

std::string median_ci(const Row& r) { return median_ci_text(r.summary); }


std::string pad(const std::string& s, std::size_t w, bool right) { return right ? pad_left(s, w) : pad_right(s, w); }

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad_left(const std::string& s, std::size_t w) {
  const std::size_t have = display_width(s);
  return have >= w ? s : std::string(w - have, ' ') + s;
}

std::string pad_right(const std::string& s, std::size_t w) {
  const std::size_t have = display_width(s);
  return have >= w ? s : s + std::string(w - have, ' ');
}

std::string median_ci_text(const stats::Summary& s) {
  if (s.n == 0) return kDash;
  if (!s.median_ci) return fmt::format("{} ± ∞ (n<6)", format_value(s.median));
  if (!s.median_rel_halfwidth)  // a median ≤ 0 has no relative width: show the interval
    return fmt::format("{} [{}, {}]", format_value(s.median), format_value(s.median_ci->lo),
                       format_value(s.median_ci->hi));
  return fmt::format("{} ± {:.1f}%", format_value(s.median), 100 * *s.median_rel_halfwidth);
}

std::string display_name(const Row& row) {
  return row.variant.empty() ? row.benchmark : fmt::format("{} [{}]", row.benchmark, row.variant);
}

std::string format_value(double v) {
  if (std::isnan(v)) return kDash;
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 10) return fmt::format("{:.2f}", v);
  if (a >= 1) return fmt::format("{:.3f}", v);
  if (a == 0) return "0";
  return fmt::format("{:.4g}", v);
}

Table build_table(const std::vector<model::Sample>& samples, const std::vector<std::string>& order) {
  Table t;
  t.conditions = order;
  for (const auto& s : samples)
    if (std::find(t.conditions.begin(), t.conditions.end(), s.condition) == t.conditions.end())
      t.conditions.push_back(s.condition);
  for (const auto& cond : t.conditions) {
    // With variants, each variant of a benchmark is its own row.
    using Key = std::pair<std::string, std::string>;  // benchmark, variant
    auto key_of = [](const model::Sample& s) { return Key{s.benchmark, s.variant}; };
    std::vector<Key> benchmarks;
    for (const auto& s : samples)
      if (s.condition == cond && std::find(benchmarks.begin(), benchmarks.end(), key_of(s)) == benchmarks.end())
        benchmarks.push_back(key_of(s));
    for (const auto& b : benchmarks) {
      Row r;
      r.condition = cond;
      r.benchmark = b.first;
      r.variant = b.second;
      std::set<int> procs;
      for (const auto& s : samples) {
        if (s.condition != cond || key_of(s) != b || s.metrics.empty()) continue;
        if (s.warmup) {
          ++r.warmup_discarded;
          continue;
        }
        if (r.unit.empty()) r.unit = s.metrics.front().unit;
        r.values.push_back(s.metrics.front().value);
        procs.insert(s.procs);
      }
      r.procs.assign(procs.begin(), procs.end());
      r.summary = stats::summarize(r.values);
      t.rows.push_back(std::move(r));
    }
  }
  for (const auto& r : t.rows) {
    for (const auto& w : r.summary.warnings) {
      // The table cell already says "± ∞ (n<6)".
      if (w.find("no 95% median CI") != std::string::npos) continue;
      t.notes.push_back(fmt::format("{} / {}: {}", r.condition, display_name(r), w));
    }
    if (r.procs.size() > 1)
      t.notes.push_back(fmt::format("{} / {}: mixed GOMAXPROCS values {}", r.condition, display_name(r),
                                    fmt::join(r.procs, ", ")));
  }
  // GOMAXPROCS changes GC scheduling: means under different values are not comparable.
  std::set<int> all_procs;
  for (const auto& r : t.rows) all_procs.insert(r.procs.begin(), r.procs.end());
  if (all_procs.size() > 1)
    t.notes.push_back(fmt::format("GOMAXPROCS differs between conditions ({}): compare CVs, not means",
                                  fmt::join(all_procs, ", ")));
  return t;
}

std::string render_markdown(const Table& t) {
  std::set<std::string> units;
  for (const auto& r : t.rows) units.insert(r.unit);
  const std::string unit = units.size() == 1 ? " " + *units.begin() : "";
  const std::vector<std::string> head = {"condition", "benchmark", "n", "mean" + unit, "stddev", "CV%",
                                         "median ± 95% CI", "min", "max", "rCV%", "band", "flags"};
  const std::vector<bool> right = {false, false, true, true, true, true, true, true, true, true, false, false};
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : t.rows) {
    const auto& s = r.summary;
    std::string bench = r.benchmark;
    if (r.procs.size() == 1 && r.procs.front() != 1) bench += fmt::format("-{}", r.procs.front());
    if (!r.variant.empty()) bench += " [" + r.variant + "]";
    cells.push_back({r.condition, bench, std::to_string(s.n), format_value(s.mean),
                     s.stddev ? format_value(*s.stddev) : kDash, opt(s.cv_pct), median_ci(r),
                     format_value(s.min), format_value(s.max), opt(s.rcv_pct),
                     std::string(stats::to_string(s.band)), flags_of(r)});
    if (units.size() > 1) cells.back()[3] += " " + r.unit;
  }
  std::vector<std::size_t> w(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    w[c] = std::max<std::size_t>(display_width(head[c]), 3);
    for (const auto& row : cells) w[c] = std::max(w[c], display_width(row[c]));
  }
  std::string out = "|";
  for (std::size_t c = 0; c < head.size(); ++c) out += " " + pad(head[c], w[c], right[c]) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < head.size(); ++c)
    out += (right[c] ? std::string(w[c] + 1, '-') + ":|" : ":" + std::string(w[c] + 1, '-') + "|");
  out += "\n";
  for (const auto& row : cells) {
    out += "|";
    for (std::size_t c = 0; c < head.size(); ++c) out += " " + pad(row[c], w[c], right[c]) + " |";
    out += "\n";
  }
  out += "\nCV = sample stddev (n−1) / mean. Bands: ≤ 2% excellent, ≤ 5% acceptable, ≤ 10% noisy, "
         "> 10% do not trust. rCV = 1.4826·MAD / median. ± is the 95% CI of the median (order "
         "statistics, as benchstat).\n";
  for (const auto& n : t.notes) out += "- " + n + "\n";
  return out;
}

// "- text" wrapped at 80 columns with a hanging indent.
std::string bullet(const std::string& text) {
  std::string out = "-";
  std::size_t col = 1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (col + 1 + display_width(word) > 80 && col > 2) {
      out += "\n ";
      col = 1;
    }
    out += " " + word;
    col += 1 + display_width(word);
    pos = end + 1;
  }
  return out + "\n";
}

std::string render_text(const Table& t) {
  std::vector<std::string> benchmarks;
  for (const auto& r : t.rows)
    if (std::find(benchmarks.begin(), benchmarks.end(), display_name(r)) == benchmarks.end())
      benchmarks.push_back(display_name(r));
  std::size_t cond_w = 9;
  for (const auto& r : t.rows) cond_w = std::min<std::size_t>(std::max(cond_w, display_width(r.condition)), 24);
  std::string out;
  std::vector<std::string> flags;
  for (const auto& b : benchmarks) {
    std::string unit;
    for (const auto& r : t.rows)
      if (display_name(r) == b) unit = r.unit;
    out += fmt::format("{}{}\n", b, unit.empty() ? "" : " (" + unit + ")");
    out += pad("condition", cond_w, false) + "    n       mean    stddev     CV%   median ± 95% CI  band\n";
    for (const auto& r : t.rows) {
      if (display_name(r) != b) continue;
      const auto& s = r.summary;
      out += fmt::format("{} {:>4} {:>10} {:>9} {:>7}  {:>16}  {}\n", pad(r.condition, cond_w, false), s.n,
                         format_value(s.mean), s.stddev ? format_value(*s.stddev) : kDash, opt(s.cv_pct),
                         median_ci(r), stats::to_string(s.band));
      if (const std::string f = flags_of(r); !f.empty()) flags.push_back(fmt::format("{} / {}: {}", r.condition, b, f));
    }
    out += "\n";
  }
  out += "CV: sample stddev (n−1) / mean; bands ≤2% excellent, ≤5% acceptable, ≤10% noisy,\n"
         ">10% do not trust; ±: 95% CI of the median (order statistics, as benchstat).\n";
  (void)flags;  // the notes below say the same in words
  for (std::string n : t.notes) {
    // One benchmark: it heads the block above, so "idle / BenchmarkX: ..." reads "idle: ...".
    if (benchmarks.size() == 1) {
      const std::string long_form = " / " + benchmarks.front() + ": ";
      if (const auto at = n.find(long_form); at != std::string::npos) n.replace(at, long_form.size(), ": ");
    }
    out += bullet(n);
  }
  return out;
}

std::string render_csv(const Table& t) {
  std::string out =
      "condition,benchmark,unit,n,mean,stddev,cv_pct,median,median_ci_lo,median_ci_hi,min,max,mad,"
      "rcv_pct,q1,q3,band,outliers,drift,shape,warmup_discarded\n";
  auto num = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); };
  auto onum = [&](const std::optional<double>& v) { return v ? num(*v) : std::string(); };
  for (const auto& r : t.rows) {
    const auto& s = r.summary;
    int outliers = 0;
    for (auto o : s.outliers) outliers += o != stats::Outlier::none;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.condition),
                       csv_field(display_name(r)), csv_field(r.unit), s.n, num(s.mean), onum(s.stddev),
                       onum(s.cv_pct), num(s.median), s.median_ci ? num(s.median_ci->lo) : "",
                       s.median_ci ? num(s.median_ci->hi) : "", num(s.min), num(s.max), num(s.mad),
                       onum(s.rcv_pct), num(s.q1), num(s.q3), stats::to_string(s.band), outliers,
                       s.drift ? "true" : "false", s.shape ? "true" : "false", r.warmup_discarded);
  }
  return out;
}

nlohmann::json render_json(const Table& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) {
    rows.push_back({{"condition", r.condition},
                    {"benchmark", r.benchmark},
                    {"unit", r.unit},
                    {"procs", r.procs},
                    {"warmup_discarded", r.warmup_discarded},
                    {"values", r.values},
                    {"summary", stats::to_json(r.summary)}});
    if (!r.variant.empty()) rows.back()["variant"] = r.variant;  // paired designs only
  }
  return {{"conditions", t.conditions}, {"rows", rows}, {"notes", t.notes}};
}

std::string render_summary(const Table& t, const std::vector<std::string>& header_lines) {
  std::string out;
  for (const auto& h : header_lines) out += h + "\n";
  for (const auto& cond : t.conditions) {
    out += fmt::format("\n## {}\n", cond);
    std::string unit = "ns/op";
    for (const auto& r : t.rows)
      if (r.condition == cond && !r.unit.empty()) {
        unit = r.unit;
        break;
      }
    out += fmt::format("{:<46} {:>6} {:>12} {:>12} {:>8}\n", "benchmark", "runs", "mean " + unit, "stddev", "CV%");
    for (const auto& r : t.rows) {
      // The demo skips a benchmark with fewer than 2 samples: no stddev, no CV.
      if (r.condition != cond || r.summary.n < 2 || !r.summary.stddev) continue;
      out += fmt::format("{:<46} {:>6} {:>12.4f} {:>12.4f} {:>8}\n", display_name(r), r.summary.n, r.summary.mean,
                         *r.summary.stddev, r.summary.cv_pct ? fmt::format("{:.2f}", *r.summary.cv_pct) : kDash);
    }
  }
  return out;
}

std::string render_gotest(const std::vector<model::Sample>& samples, const std::string& condition,
                          const std::vector<std::pair<std::string, std::string>>& config,
                          bool include_warmup) {
  std::string out;
  for (const auto& [k, v] : config) {
    std::string value = v;
    std::replace(value.begin(), value.end(), '\n', ' ');
    out += fmt::format("{}: {}\n", k, value);
  }
  for (const auto& s : samples) {
    if (s.condition != condition || (s.warmup && !include_warmup)) continue;
    out += fmt::format("{}\t{}", s.name, s.iterations);
    for (const auto& m : s.metrics) out += fmt::format("\t{} {}", m.value, m.unit);
    out += "\n";
  }
  return out;
}

}  // namespace noisefloor::report
