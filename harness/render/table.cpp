#include "render/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "analysis/suite.hpp"
#include "analysis/sweep.hpp"
#include "model/first_seen.hpp"
#include "model/go_config.hpp"
#include "render/suite.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

using analysis::Row;
using analysis::Table;
using text::format_value;
using text::kDash;

std::string opt(const std::optional<double>& v) { return text::fixed(v, 2); }

std::string flags_text(const Row& r) {
  const analysis::Flags flags = analysis::flags_of(r);
  std::vector<std::string> f;
  if (flags.outliers)
    f.push_back(fmt::format("{} outlier{}", flags.outliers, flags.outliers == 1 ? "" : "s"));
  if (flags.drift) f.push_back("drift");
  if (flags.shape) f.push_back("shape");
  if (flags.few) f.push_back("n<2");
  if (flags.starved) f.push_back("starved");
  return f.empty() ? "" : fmt::format("{}", fmt::join(f, ", "));
}

}  // namespace

std::string row_center_text(const Row& r) {
  if (!r.exact) return median_ci_text(r.summary);
  const auto& s = r.summary;
  std::string pct = "?";
  if (r.mode == 0) {
    pct = s.min == 0 && s.max == 0 ? "0%" : "?";
  } else if ((r.mode > 0) == (s.min > 0) && (r.mode > 0) == (s.max > 0)) {
    pct = fmt::format("{:.0f}%", 100 * std::max(s.max / r.mode - 1, 1 - s.min / r.mode));
  }
  return fmt::format("{} ± {} exact", format_value(r.mode), pct);
}

namespace {

std::string median_ci(const Row& r) { return row_center_text(r); }

// "pkg: a" lines heading a group of blocks, as benchstat heads its tables.
std::string config_heading(const std::string& config) {
  std::string out;
  for (const auto& [key, value] : model::config_entries(config)) out += key + ": " + value + "\n";
  return out;
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  return right ? text::pad_left(s, w) : text::pad_right(s, w);
}

}  // namespace

std::string label_reason_text(const analysis::LabelReason& r) {
  using Basis = analysis::LabelReason::Basis;
  switch (r.basis) {
    case Basis::spinners:
      return fmt::format("{} spinner{}", r.spinners, r.spinners == 1 ? "" : "s");
    case Basis::starved:
      return fmt::format("starved: its threads waited for a CPU {:.0f}% of the time they were runnable",
                         r.waited_percent);
    case Basis::run_queue: {
      std::string own;
      if (r.for_each_other)
        own = r.beside_s < 0.0005 ? ", for each other: no other work measured beside it"
              : r.beside_s < 1
                  ? fmt::format(", for each other: other work ran only {:.3g} ms beside it", r.beside_s * 1e3)
                  : fmt::format(", for each other: other work ran only {:.3g} s beside it", r.beside_s);
      return fmt::format("its threads waited for a CPU {:.1f}% of the time they were runnable{}",
                         r.waited_percent, own);
    }
    case Basis::settled_loads:
      return 2 * r.bad > r.settled
                 ? fmt::format("{} of {} settled load readings: {}", r.bad, r.settled, r.load)
                 : fmt::format("{} of {} settled load readings busy", r.bad, r.settled);
    case Basis::start_load:
      return r.load.empty() ? "the load when the run started" : r.load + " when the run started";
    case Basis::no_record:
      return "no load record";
    case Basis::none:
      break;
  }
  return "";
}

std::string median_ci_text(const stats::Summary& s) {
  if (s.n == 0) return kDash;
  if (!s.median_ci) return fmt::format("{} ± ∞ (n<6)", format_value(s.median));
  // Every value at 0 (0 B/op, 0 allocs/op): no spread at all, as benchstat says it.
  if (s.median == 0 && s.median_ci->lo == 0 && s.median_ci->hi == 0) return "0 ± 0.0%";
  if (!s.median_rel_halfwidth)  // a median ≤ 0 has no relative width: show the interval
    return format_value(s.median) + " " +
           text::interval(format_value(s.median_ci->lo), format_value(s.median_ci->hi));
  return fmt::format("{} ± {:.1f}%", format_value(s.median), 100 * *s.median_rel_halfwidth);
}

namespace {

// table_markdown into `out`: whole (reserved once) without `sink`, else written to `sink` a piece
// of about 1 MiB at a time and `out` left empty.
void markdown_into(const Table& t, std::string& out, const std::function<void(std::string_view)>* sink) {
  constexpr std::size_t kPiece = 1u << 20;
  const std::vector<const Row*> rows = analysis::rows_by_benchmark(t);
  std::set<std::string> units;
  for (const Row* r : rows) units.insert(r->unit);
  // A unit comes from the benchmark's output: a cell of its own kind, escaped as names are.
  const std::string unit = units.size() == 1 ? " " + text::markdown_cell(*units.begin()) : "";
  // The label column when the conditions have labels (a go test file has none).
  const bool labelled = !t.labels.empty();
  std::vector<std::string> head = {"condition",       "benchmark", "n",   "mean" + unit, "stddev", "CV%",
                                   "median ± 95% CI", "min",       "max", "rCV%",        "band",   "flags"};
  std::vector<bool> right = {false, false, true, true, true, true, true, true, true, true, false, false};
  if (labelled) {
    head.insert(head.begin() + 1, "label");
    right.insert(right.begin() + 1, false);
  }
  // Each row's cells, made twice: once for the columns' widths and the table's size, once to
  // write them (a table of 10^4 rows holds 10^5 cells: held, they took more memory than its rows).
  const auto cells_of = [&](const Row& r, const auto& cell) {
    const auto& s = r.summary;
    cell(text::markdown_cell(r.condition));
    if (labelled) cell(std::string(to_string(t.label_of(r.condition))));
    cell(text::markdown_cell(analysis::display_name(r)));
    cell(std::to_string(s.n));
    cell(format_value(s.mean) + (units.size() > 1 ? " " + text::markdown_cell(r.unit) : ""));
    cell(s.stddev ? format_value(*s.stddev) : std::string(kDash));
    cell(opt(s.cv_pct));
    cell(median_ci(r));
    cell(format_value(s.min));
    cell(format_value(s.max));
    cell(opt(s.rcv_pct));
    cell(std::string(stats::to_string(s.band)));
    cell(flags_text(r));
  };
  std::vector<std::size_t> w(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) w[c] = std::max<std::size_t>(text::width(head[c]), 3);
  // The page's size, so that it is allocated once: the rows' lines (cells, their padding and the
  // bars), the notes (escaping at most doubles them) and room for the rest.
  std::size_t bytes = 4096;
  for (const Row* r : rows) {
    std::size_t c = 0;
    cells_of(*r, [&](const std::string& cell) {
      const std::size_t width = text::width(cell);
      w[c] = std::max(w[c], width);
      bytes += cell.size() - width + 3;  // its bytes beyond its width, " " and " |"
      ++c;
    });
  }
  std::size_t line = 2;  // "|" and "\n"
  for (const std::size_t width : w) line += width;
  bytes += rows.size() * line;
  const std::vector<std::string> notes = table_notes(t);
  for (const auto& n : notes) bytes += 2 * n.size() + 3;
  if (labelled) {
    out += "Labels (how clean each condition's room was, from what was measured over it):\n\n";
    for (const auto& c : t.conditions) {
      const auto it = t.labels.find(c);
      const std::string why = it == t.labels.end() ? "" : label_reason_text(it->second.reason);
      out += "- " + text::markdown_cell(c) + ": " + std::string(to_string(t.label_of(c))) +
             (why.empty() ? "" : " (" + text::markdown_cell(why) + ")") + "\n";
    }
    out += "\n";
  }
  out += "|";
  for (std::size_t c = 0; c < head.size(); ++c) out += " " + pad(head[c], w[c], right[c]) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < head.size(); ++c)
    out += (right[c] ? std::string(w[c] + 1, '-') + ":|" : ":" + std::string(w[c] + 1, '-') + "|");
  out += "\n";
  out.reserve(out.size() + (sink != nullptr ? std::min(bytes, 2 * kPiece) : bytes));
  for (const Row* r : rows) {
    if (sink != nullptr && out.size() >= kPiece) {
      (*sink)(out);
      out.clear();
    }
    std::size_t c = 0;
    out += "|";
    cells_of(*r, [&](const std::string& cell) {
      out += " " + pad(cell, w[c], right[c]) + " |";
      ++c;
    });
    out += "\n";
  }
  out +=
      "\nCV = sample stddev (n−1) / mean. Bands: ≤ 2% excellent, ≤ 5% acceptable, ≤ 10% noisy, "
      "> 10% do not trust. rCV = 1.4826·MAD / median. ± is the 95% CI of the median (order "
      "statistics, as benchstat).\n";
  // Notes name benchmarks (from the benchmark's output): no link, image or HTML tag of theirs.
  for (const auto& n : notes) out += "- " + text::markdown_text(n) + "\n";
  if (sink != nullptr) {
    (*sink)(out);
    std::string().swap(out);
  }
}

}  // namespace

std::string table_markdown(const Table& t) {
  std::string out;
  markdown_into(t, out, nullptr);
  return out;
}

void table_markdown(const Table& t, const std::function<void(std::string_view)>& sink) {
  std::string buffer;
  markdown_into(t, buffer, &sink);
}

// A condition's name in `columns`: a merged one ("<source>:<condition>", Table::merged_sources)
// keeps its condition whole and the end of its source ("…T114207Z:idle"), so rows of two runs
// stay told apart.
namespace {
std::string fit_condition(const Table& t, const std::string& condition, std::size_t columns) {
  const std::string name = text::row_label(condition);
  if (text::width(name) <= columns) return name;
  const auto from = t.merged_sources.find(condition);
  if (from != t.merged_sources.end() && name == condition) {  // shown as it is: split where it was joined
    const std::size_t colon = from->second.size();
    const std::string own = name.substr(colon);  // ":idle"
    const std::size_t keep = columns > text::width(own) + 1 ? columns - text::width(own) - 1 : 0;
    if (keep >= 3 && std::all_of(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(colon),
                                 [](unsigned char c) { return c < 0x80; }))
      return "…" + name.substr(colon - std::min(keep, colon), std::min(keep, colon)) + own;
  }
  return text::truncate(name, columns);
}
}  // namespace

namespace {

// One condition (a go test file, or a run of one condition): one table per configuration and unit,
// a row per benchmark named as benchstat names it (without "Benchmark"), as benchstat prints a file.
// A name wider than its column takes a line of its own, the numbers on the next.
std::string one_condition_text(const Table& t, const std::vector<const Row*>& rows) {
  // The rows of each (configuration, unit), both in the order first seen.
  model::FirstSeen<std::string> configs, units;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<const Row*>> of;
  for (const Row* r : rows)
    of[{configs.add(model::config_only(r->config, t.config_keys)), units.add(r->unit)}].push_back(r);
  const auto name_of = [](const Row* r) {
    std::string_view name = r->name;
    if (name.starts_with("Benchmark") && name.size() > 9) name.remove_prefix(9);
    return text::row_label(name) + (r->variant.empty() ? "" : " [" + r->variant + "]");
  };
  std::size_t median_w = 16, band_w = 0, name_w = 9;
  for (const Row* r : rows) {
    median_w = std::max(median_w, text::width(median_ci(*r)));
    band_w = std::max(band_w, text::width(stats::to_string(r->summary.band)));
    name_w = std::max(name_w, text::width(name_of(r)));
  }
  const std::size_t numbers = 54 + (median_w - 16);
  const std::size_t name_max =
      std::max<std::size_t>(9, 80 > numbers + band_w + 9 ? 80 - numbers - band_w : 9);
  name_w = std::min(name_w, name_max);
  const std::string& condition = t.conditions.front();
  std::string out = "condition: " + text::line_label(condition);
  if (const auto it = t.labels.find(condition); it != t.labels.end()) {
    const std::string why = label_reason_text(it->second.reason);
    out = text::wrap(
        out + " · " + std::string(to_string(it->second.label)) + (why.empty() ? "" : " (" + why + ")"), 80,
        "", "  ");
  } else {
    out += "\n";
  }
  out += "\n";
  for (std::size_t c = 0; c < configs.size(); ++c) {
    out += config_heading(configs[c]);
    for (std::size_t u = 0; u < units.size(); ++u) {
      const auto it = of.find({c, u});
      if (it == of.end()) continue;
      out += pad(units[u], name_w, false) + "    n       mean    stddev     CV%  " +
             text::pad_left("median ± 95% CI", median_w) + "  band\n";
      for (const Row* r : it->second) {
        const auto& s = r->summary;
        const std::string name = name_of(r);
        const bool own_line = text::width(name) > name_w;
        if (own_line) out += name + "\n";
        out += fmt::format("{} {:>4} {:>10} {:>9} {:>7}  {}  {}\n", pad(own_line ? "" : name, name_w, false),
                           s.n, format_value(s.mean), s.stddev ? format_value(*s.stddev) : kDash,
                           opt(s.cv_pct), text::pad_left(median_ci(*r), median_w), stats::to_string(s.band));
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace

namespace {

// One block per benchmark (its name, configuration and variant) and unit, primary unit first;
// blocks of one configuration under a "pkg: a" heading when a configuration key tells rows apart.
// The same benchmark at another GOMAXPROCS or thread count in another condition is the same
// block (analysis::suite_lines), each row then saying its count.
struct Block {
  std::size_t benchmark;  // SuiteLine::benchmark
  std::string unit;
  std::vector<const Row*> rows;
  bool same_procs = true;
  std::string name, variant;  // the benchmark's name, and " [variant]" or nothing
};

std::vector<Block> blocks_of(const Table& t) {
  std::vector<Block> blocks;
  // Benchmarks as they first came, each with its lines.
  std::vector<std::vector<const analysis::SuiteLine*>> lines_of;
  const std::vector<analysis::SuiteLine> lines = analysis::suite_lines(t);
  for (const auto& l : lines) {
    if (l.benchmark == lines_of.size()) lines_of.emplace_back();
    lines_of[l.benchmark].push_back(&l);
  }
  for (std::size_t k = 0; k < lines_of.size(); ++k)
    for (const analysis::SuiteLine* l : lines_of[k]) {
      Block b{k, std::string(l->unit), {}, l->same_procs(), "", ""};
      for (const Row* r : l->cells)
        if (r != nullptr) b.rows.push_back(r);
      if (b.rows.empty()) continue;
      const std::string& name = b.same_procs ? b.rows.front()->name : l->name;
      const std::string variant = l->variant.empty() ? "" : fmt::format(" [{}]", l->variant);
      b.name = name;
      b.variant = variant;
      blocks.push_back(std::move(b));
    }
  return blocks;
}

}  // namespace

std::string table_text(const Table& t, std::size_t width) {
  width = std::max<std::size_t>(width, 80);
  const std::vector<const Row*> rows = analysis::all_rows(t);
  if (t.conditions.size() > 1 && suite_benchmarks(t) > t.conditions.size()) return suite_text(t, width);
  if (t.conditions.size() == 1 && !rows.empty()) {
    std::string out = one_condition_text(t, rows);
    out +=
        "CV: sample stddev (n−1) / mean; bands ≤2% excellent, ≤5% acceptable, ≤10% noisy,\n"
        ">10% do not trust; ±: 95% CI of the median (order statistics, as benchstat).\n";
    bool exact = false;
    for (const Row* r : rows) exact = exact || r->exact;
    if (exact)
      out +=
          "exact: a unit its file marks `assume=exact`: the mode ± the range of the values (as benchstat).\n";
    for (const std::string& n : table_notes(t)) out += text::wrap(n, 80, "- ", "  ");
    return out;
  }
  const std::vector<Block> blocks = blocks_of(t);
  // Blocks in the order of their configuration's first appearance, then as they came.
  model::FirstSeen<std::string> labels;  // the distinguishing part of each configuration (canonical text)
  const auto shown_config = [&t](const Row* r) { return model::config_only(r->config, t.config_keys); };
  for (const Row* r : rows) labels.add(shown_config(r));
  // The condition column takes what 80 columns leave after the numbers and the widest band;
  // a longer condition name is shortened with "…".
  // " n mean stddev CV%  median ± 95% CI  " as laid out below: 54 columns, and more when a median
  // cell is wider than its 16 ("0.01168 ± ∞ (n<6)").
  std::size_t median_w = 16;
  for (const Row* r : rows) median_w = std::max(median_w, text::width(median_ci(*r)));
  const std::size_t kNumbers = 54 + (median_w - 16);
  std::size_t band_w = 0;
  for (const Row* r : rows) band_w = std::max(band_w, text::width(stats::to_string(r->summary.band)));
  const std::size_t cond_max =
      std::max<std::size_t>(9, 80 - kNumbers - std::min<std::size_t>(band_w, 80 - kNumbers - 9));
  std::size_t cond_w = 9;
  const auto suffix_of = [](const Block& b, const Row* r) {
    return !b.same_procs && r->procs.size() == 1 ? fmt::format(" ({})", r->procs.front()) : std::string();
  };
  const auto condition_of = [&](const Block& b, const Row* r) {
    return text::row_label(r->condition) + suffix_of(b, r);
  };
  for (const auto& b : blocks)
    for (const Row* r : b.rows)
      cond_w = std::min(std::max(cond_w, text::width(condition_of(b, r))), cond_max);
  // A metric other than the primary one with one value in every sample of every condition (B/op
  // and allocs/op of most benchmarks) is said on one line under its benchmark's block, not as a
  // block of its own.
  const auto constant = [](const Block& b) {
    if (b.rows.front()->metric == 0) return false;
    const double v = b.rows.front()->summary.min;
    return std::all_of(b.rows.begin(), b.rows.end(),
                       [v](const Row* r) { return r->summary.min == v && r->summary.max == v; });
  };
  // Per label, its blocks; per benchmark, the constant blocks said under its primary one.
  std::vector<std::vector<const Block*>> blocks_of(labels.size());
  std::map<std::size_t, std::vector<const Block*>> constant_of;
  for (const auto& b : blocks) {
    if (constant(b)) {
      constant_of[b.benchmark].push_back(&b);
    } else {
      blocks_of[*labels.find(shown_config(b.rows.front()))].push_back(&b);
    }
  }
  std::string out = conditions_legend(t, 80);
  for (std::size_t l = 0; l < labels.size(); ++l) {
    if (!labels[l].empty()) out += config_heading(labels[l]);
    for (const Block* block : blocks_of[l]) {
      const Block& b = *block;
      out += fmt::format("{}{}{}\n", text::row_label(b.name), b.variant,
                         b.unit.empty() ? "" : " (" + b.unit + ")");
      out += pad("condition", cond_w, false) + "    n       mean    stddev     CV%  " +
             text::pad_left("median ± 95% CI", median_w) + "  band\n";
      for (const Row* r : b.rows) {
        const auto& s = r->summary;
        // A long name is shortened, never its count.
        const std::string suffix = suffix_of(b, r);
        const std::string condition = fit_condition(t, r->condition, cond_w - text::width(suffix)) + suffix;
        out += fmt::format("{} {:>4} {:>10} {:>9} {:>7}  {}  {}\n", pad(condition, cond_w, false), s.n,
                           format_value(s.mean), s.stddev ? format_value(*s.stddev) : kDash, opt(s.cv_pct),
                           text::pad_left(median_ci(*r), median_w), stats::to_string(s.band));
      }
      if (b.rows.front()->metric == 0) {
        std::vector<std::string> same;
        if (const auto it = constant_of.find(b.benchmark); it != constant_of.end())
          for (const Block* o : it->second)
            same.push_back(format_value(o->rows.front()->summary.min) + " " + o->unit);
        if (!same.empty())
          out += text::wrap(fmt::format("{}: in every sample", fmt::join(same, ", ")), 80, "", "  ");
      }
      out += "\n";
    }
  }
  out +=
      "CV: sample stddev (n−1) / mean; bands ≤2% excellent, ≤5% acceptable, ≤10% noisy,\n"
      ">10% do not trust; ±: 95% CI of the median (order statistics, as benchstat).\n";
  if (std::any_of(blocks.begin(), blocks.end(), [](const Block& b) { return !b.same_procs; }))
    out += text::wrap(
        analysis::threads_not_procs(t)
            ? "(N) after a condition: its thread count, where the conditions' differ."
            : "(N) after a condition: its GOMAXPROCS (the -N of a Go name), where the conditions' differ.",
        80, "", "");
  bool exact = false;
  for (const Row* r : rows) exact = exact || r->exact;
  if (exact)
    out +=
        "exact: a unit its file marks `assume=exact`: the mode ± the range of the values (as benchstat).\n";
  // The flags are not repeated here: the notes below say the same in words.
  std::set<std::string> names;
  for (const auto& b : blocks) names.insert(text::line_label(b.name) + b.variant);  // as a note names it
  for (std::string n : table_notes(t)) {
    // One benchmark: it heads the block above, so "idle / BenchmarkX: ..." reads "idle: ...".
    if (names.size() == 1 && labels.size() == 1) {
      const std::string long_form = " / " + *names.begin() + ": ";
      if (const auto at = n.find(long_form); at != std::string::npos) n.replace(at, long_form.size(), ": ");
    }
    out += text::wrap(n, 80, "- ", "  ");
  }
  return out;
}

std::string table_csv(const Table& t) {
  // A sweep's points: the group and each swept setting as columns of their own, so a reader can
  // re-plot the curve (empty for rows of other conditions).
  const std::vector<std::string> swept = analysis::sweep_parameters(t);
  std::string out =
      "condition,benchmark,unit,n,mean,stddev,cv_pct,median,median_ci_lo,median_ci_hi,min,max,mad,"
      "rcv_pct,q1,q3,band,outliers,drift,shape,warmup_discarded,config,exact,mode,label,starved";
  if (!swept.empty()) {
    out += ",sweep";
    for (const auto& p : swept) out += "," + text::csv_field(p);
  }
  out += "\n";
  const auto num = text::shortest;
  const auto onum = [](const std::optional<double>& v) { return v ? text::shortest(*v) : std::string(); };
  for (const Row* rp : analysis::all_rows(t)) {
    const Row& r = *rp;
    const auto& s = r.summary;
    const int outliers = analysis::flags_of(r).outliers;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        text::csv_field(r.condition), text::csv_field(analysis::display_name(r)), text::csv_field(r.unit),
        s.n, num(s.mean), onum(s.stddev), onum(s.cv_pct), num(s.median),
        s.median_ci ? num(s.median_ci->lo) : "", s.median_ci ? num(s.median_ci->hi) : "", num(s.min),
        num(s.max), num(s.mad), onum(s.rcv_pct), num(s.q1), num(s.q3), stats::to_string(s.band), outliers,
        s.drift ? "true" : "false", s.shape ? "true" : "false", r.warmup_discarded,
        text::csv_field(model::config_label(r.config)), r.exact ? "true" : "false",
        r.exact ? num(r.mode) : "", t.labels.empty() ? "" : std::string(to_string(t.label_of(r.condition))),
        r.starved ? "true" : "false");
    if (!swept.empty()) {
      const auto it = t.sweeps.find(r.condition);
      out += "," + (it == t.sweeps.end() ? std::string() : text::csv_field(it->second.group));
      for (const auto& p : swept) {
        out += ",";
        if (it == t.sweeps.end()) continue;
        for (const auto& setting : it->second.settings)
          if (setting.parameter == p) out += text::csv_field(setting.value);
      }
    }
    out += "\n";
  }
  return out;
}

std::string summary_blocks(const Table& t, const std::vector<std::string>& header_lines) {
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
    out += fmt::format("{:<46} {:>6} {:>12} {:>12} {:>8}\n", "benchmark", "runs", "mean " + unit, "stddev",
                       "CV%");
    // The demo's rows name a benchmark without its -N suffix; a benchmark this condition ran under
    // several GOMAXPROCS keeps the suffix, so its rows are never read as one.
    std::map<std::pair<std::string, std::string>, int> names;  // (benchmark, variant) -> rows
    for (const auto& r : t.rows)
      if (r.condition == cond) ++names[{r.benchmark, r.variant}];
    for (const auto& r : t.rows) {
      // The demo skips a benchmark with fewer than 2 samples: no stddev, no CV.
      if (r.condition != cond || r.summary.n < 2 || !r.summary.stddev) continue;
      const std::string name = names[{r.benchmark, r.variant}] > 1 ? analysis::display_name(r)
                               : r.variant.empty()                 ? r.benchmark
                                                                   : r.benchmark + " [" + r.variant + "]";
      out += fmt::format("{:<46} {:>6} {:>12.4f} {:>12.4f} {:>8}\n", text::line_label(name), r.summary.n,
                         r.summary.mean, *r.summary.stddev,
                         r.summary.cv_pct ? fmt::format("{:.2f}", *r.summary.cv_pct) : kDash);
    }
  }
  return out;
}

// A name as the Go benchmark format requires it: "Benchmark", then the end or a character that is
// not a lower-case letter, no white space. Go's own names pass unchanged; "tiny" (a command) becomes
// "BenchmarkTiny", "BM_Sort/8" (Google Benchmark) "BenchmarkBM_Sort/8".
std::string go_benchmark_name(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  const auto valid = [](std::string_view n) {
    return n.starts_with("Benchmark") && (n.size() == 9 || !std::islower(static_cast<unsigned char>(n[9])));
  };
  if (valid(out)) return out;
  if (!out.empty()) out.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(out.front())));
  return "Benchmark" + out;
}

std::string gotest_raw(const records::Samples& samples, const std::string& condition,
                       const std::vector<std::pair<std::string, std::string>>& config, bool include_warmup,
                       const std::set<std::string>& commented, std::map<std::string, std::string>* in_force) {
  std::string out;
  for (const auto& [k, v] : config) {
    std::string value = v;
    std::replace(value.begin(), value.end(), '\n', ' ');
    out += fmt::format("{}{}: {}\n", commented.count(k) ? "# " : "", k, value);
  }
  // The configuration each result was printed under is written where it changes (a `go test
  // ./...` run's pkg: lines), so that a reader keys the rows as the original output keyed them.
  std::map<std::string, std::string> local;
  std::map<std::string, std::string>& current = in_force != nullptr ? *in_force : local;
  const std::string* last = nullptr;
  for (const records::SampleRef s : samples) {
    if (s.condition != condition || (s.warmup && !include_warmup)) continue;
    if (last == nullptr || *last != s.config) {
      std::map<std::string, std::string> wanted;
      for (auto& [k, v] : model::config_entries(s.config)) wanted.emplace(std::move(k), std::move(v));
      for (const auto& [k, v] : current)
        if (!wanted.count(k)) out += fmt::format("{}:\n", k);  // an empty value deletes the key
      for (const auto& [k, v] : wanted)
        if (const auto it = current.find(k); it == current.end() || it->second != v)
          out += fmt::format("{}: {}\n", k, v);
      current = std::move(wanted);
      last = &s.config;
    }
    out += fmt::format("{}\t{}", go_benchmark_name(s.name), s.iterations);
    for (const auto& m : s.metrics) out += fmt::format("\t{} {}", m.value, m.unit);
    out += "\n";
  }
  return out;
}

}  // namespace noisefloor::render
