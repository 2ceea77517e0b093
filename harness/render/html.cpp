#include "render/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "analysis/suite.hpp"
#include "analysis/verdict.hpp"
#include "render/diagnosis.hpp"
#include "render/judge.hpp"
#include "render/svg.hpp"
#include "render/sweep_plot.hpp"
#include "render/sweep_table.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"
#include "text/units.hpp"

namespace noisefloor::render {
namespace {

using analysis::Analysis;
using analysis::Row;
using analysis::Table;
using nlohmann::json;
using text::format_value;

using text::kDash;

std::string escape(std::string_view s) { return text::html_escape(s); }

// A benchmark name escaped, with a line-break opportunity after each '/' and '_' (long suite names
// wrap there, not mid-word, when a table needs the room).
std::string breakable(std::string_view name) {
  std::string out;
  for (const char c : name) {
    out += escape(std::string_view(&c, 1));
    if (c == '/' || c == '_') out += "<wbr>";
  }
  return out;
}

// Small enough to read in one go; print-friendly (no backgrounds needed to read a value).
constexpr const char* kReportStyle = R"(
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0 auto;max-width:1560px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.7rem;margin:.2rem 0 .4rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.4rem 0 .3rem}
.description{max-width:75ch;margin:.2rem 0 .8rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
nav{font-size:.92rem;margin:.8rem 0;display:flex;flex-wrap:wrap;gap:.2rem .9rem}nav a{overflow-wrap:anywhere}
table.overview td{padding:0}table.overview td a{display:block;padding:.22rem .5rem;color:inherit;text-decoration:none;white-space:nowrap}table.overview td a:hover{outline:2px solid #0072b2}table.overview small{font-weight:400}
.label{font-size:.78rem;font-weight:600;padding:0 .3rem;border-radius:3px;white-space:nowrap}.label-MEASURED-clean{background:#cde9db}.label-CONTENDED,.label-CONTENDED-PAIRED{background:#f5c6ae}.label-UNKNOWN{background:#e4e4e4}
table{border-collapse:collapse;font-size:.9rem;margin:.4rem 0}th,td{border:1px solid #c8c8c8;padding:.22rem .5rem;vertical-align:top}th{background:#f2f2f2;text-align:left}
td.bench{min-width:14ch;overflow-wrap:anywhere}.wide{overflow-x:auto}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.band{font-weight:600;white-space:nowrap}.band-excellent{background:#cde9db}.band-acceptable{background:#d4e8f5}.band-noisy{background:#fbe3b3}.band-do-not-trust{background:#f5c6ae}.band-insufficient{background:#e4e4e4}
.swatch{vertical-align:-2px;margin-right:.3rem}
.legend{font-size:.88rem;color:#333;max-width:95ch}.legend dt{font-weight:600;float:left;clear:left;margin-right:.4rem}.legend dd{margin:0 0 .15rem}
.notes{font-size:.88rem}
figure{margin:.6rem 0 1rem}figure svg{width:100%;height:auto;display:block}figcaption{font-size:.86rem;color:#333;margin-top:.2rem}
.banner{border:2px solid #d55e00;background:#fdebe1;padding:.5rem .8rem;margin:1rem 0;font-weight:600}
.ok{border-color:#009e73;background:#e3f3ec}
.warnings{border-left:4px solid #e69f00;padding:.2rem .8rem;background:#fff7e6}
tr.moves td{background:#fdebe1}
.unknown{color:#666;font-style:italic}
.fp td:first-child{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.82rem;white-space:nowrap}.fp td{word-break:break-word}
.samples td.warm{color:#666;font-style:italic}.samples{font-size:.82rem}
.outcome-pass{background:#cde9db;font-weight:600}.outcome-fail{background:#f5c6ae;font-weight:600}
table.claims td.verdict{font-weight:600;white-space:nowrap}tr.reproduced td.verdict{background:#cde9db}tr.not-reproduced td.verdict{background:#f5c6ae}tr.inconclusive td.verdict{background:#fbe3b3}tr.undefined td.verdict{background:#e4e4e4}
.headline{font-weight:600}.method{font-weight:400;color:#555}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}
footer{margin-top:3rem;font-size:.82rem;color:#555;border-top:1px solid #ddd;padding-top:.5rem}
@media print{nav{display:none}h2{break-after:avoid}figure,table{break-inside:avoid}}
)";

std::string band_class(std::string_view band) {
  std::string s(band);
  std::replace(s.begin(), s.end(), ' ', '-');
  return "band band-" + s;
}

constexpr const char* kOutlierHelp =
    "samples whose robust (MAD-based) modified z-score exceeds 3.5; extreme beyond 10 (Iglewicz & Hoaglin)";
constexpr const char* kDriftHelp =
    "lag-1 autocorrelation above 2/√n: successive samples depend on each other (warm-up, thermal or "
    "background load changing over time)";
constexpr const char* kShapeHelp =
    "CV more than twice the robust rCV: a heavy tail, outliers or several modes; look at the plot";
constexpr const char* kFewHelp = "fewer than 2 kept samples: no spread can be computed";
constexpr const char* kStarvedHelp =
    "other work kept the benchmark from its CPUs (its threads waited in the run queue): the band is capped "
    "at "
    "do not trust; the notes give the figures";

std::string flags_html(const Row& r) {
  std::vector<std::string> f;
  const analysis::Flags flags = analysis::flags_of(r);
  if (flags.outliers)
    f.push_back(fmt::format("<abbr title=\"{}\">{} outlier{}</abbr>", kOutlierHelp, flags.outliers,
                            flags.outliers == 1 ? "" : "s"));
  if (flags.drift) f.push_back(fmt::format("<abbr title=\"{}\">drift</abbr>", kDriftHelp));
  if (flags.shape) f.push_back(fmt::format("<abbr title=\"{}\">shape</abbr>", kShapeHelp));
  if (flags.few) f.push_back(fmt::format("<abbr title=\"{}\">n&lt;2</abbr>", kFewHelp));
  if (flags.starved) f.push_back(fmt::format("<abbr title=\"{}\">starved</abbr>", kStarvedHelp));
  return fmt::format("{}", fmt::join(f, ", "));
}

// Display style (colour + shape) of every condition, in table order: the same in every plot.
std::map<std::string, std::size_t> styles_of(const Table& t) {
  std::map<std::string, std::size_t> m;
  for (std::size_t i = 0; i < t.conditions.size(); ++i) m[t.conditions[i]] = i;
  return m;
}

std::string swatch(std::size_t style) {
  return "<svg class=\"swatch\" width=\"14\" height=\"14\" viewBox=\"0 0 14 14\" aria-hidden=\"true\">" +
         svg::marker(svg::shape_for(style), svg::colour_for(style), 7, 7, 5, false) + "</svg>";
}

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return kDash;
  if (j.is_number_float()) return fmt::format("{:.4g}", j.get<double>());
  return j.dump();
}
std::string g4(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string(kDash); }

// A benchmark of the plots: one primary line of the suite view (analysis/suite.hpp), so a
// benchmark at GOMAXPROCS 2 in one condition and 1 in another is one section; its variants'
// lines join it. Its title with the configuration that tells it apart ("BenchmarkGet-8 (pkg: a)").
struct PlotBenchmark {
  std::set<const Row*> rows;  // rows of Table::rows: in the table's order
  std::string title;
};

std::vector<PlotBenchmark> benchmarks_of(const Table& t) {
  std::vector<PlotBenchmark> out;
  std::map<std::string, std::size_t> keys;  // -> its section in out
  const bool threads = analysis::threads_not_procs(t);
  // A variant's lines join the same benchmark's: the k-th line of a (configuration, name, variant)
  // goes to the k-th section of the (configuration, name).
  std::map<std::string, int> seen;
  for (const analysis::SuiteLine& l : analysis::suite_lines(t)) {
    if (l.metric != 0) continue;
    const int k = seen[fmt::format("{}\n{}\n{}", l.config, l.name, l.variant)]++;
    const std::string key = fmt::format("{}\n{}\n{}", l.config, l.name, k);
    auto at = keys.find(key);
    if (at == keys.end()) {
      const Row* first = nullptr;
      for (const Row* r : l.cells)
        if (r != nullptr && first == nullptr) first = r;
      std::string title;
      if (l.same_procs()) {
        title = analysis::row_name(first->name, l.config_label);
      } else {  // "BenchmarkX (GOMAXPROCS: idle 2, pinned 1)"
        std::vector<std::string> counts;
        for (std::size_t c = 0; c < l.cells.size(); ++c)
          if (l.cells[c] != nullptr && l.cells[c]->procs.size() == 1)
            counts.push_back(fmt::format("{} {}", t.conditions[c], l.cells[c]->procs.front()));
        title = analysis::row_name(threads ? l.name : first->benchmark, l.config_label) +
                fmt::format(" ({}: {})", threads ? "threads" : "GOMAXPROCS", fmt::join(counts, ", "));
      }
      at = keys.emplace(key, out.size()).first;
      out.push_back({{}, std::move(title)});
    }
    for (const Row* r : l.cells)
      if (r != nullptr) out[at->second].rows.insert(r);
  }
  return out;
}

// ---- header ----

// The doctor's findings other than OK, collapsed: level, topic, why, and the fix to copy.
std::string doctor_findings(const fingerprint::DoctorReport& doctor) {
  std::string rows;
  for (const auto& f : doctor.findings) {
    if (f.level == fingerprint::Level::ok) continue;
    rows += fmt::format("<li><strong>{}</strong> {}: {}{}</li>\n", escape(fingerprint::to_string(f.level)),
                        escape(fingerprint::topic_name(f)), escape(f.message),
                        f.fix.empty() ? "" : "<br>fix: <code>" + escape(f.fix) + "</code>");
  }
  if (rows.empty()) return "";
  return "\n<details><summary>Findings</summary>\n<ul class=\"notes\">\n" + rows + "</ul>\n</details>";
}

std::string doctor_grade(const records::Fingerprint& fp) {
  return fp.doctor ? std::string(fingerprint::to_string(fp.doctor->grade)) : "not checked";
}

std::string header(const Analysis& d, std::string_view generated_by) {
  std::string out = fmt::format("<header>\n<h1>{}</h1>\n", escape(d.title()));
  const records::Result& first = d.sources.front();
  const std::string description = first.description();
  if (!description.empty()) out += fmt::format("<p class=\"description\">{}</p>\n", escape(description));
  out += "<dl class=\"facts\">\n";
  if (d.merged) {
    for (const auto& s : d.sources)
      out += fmt::format("<dt>{}</dt><dd>{} · {} · run {} · {} · doctor: {}</dd>\n", escape(s.label),
                         escape(s.run ? s.run->started_utc : "unknown date"),
                         escape(s.fingerprint.host_line()), escape(s.run ? s.run->run_id : s.label),
                         escape(s.run ? records::to_string(s.run->status) : "unknown"),
                         escape(doctor_grade(s.fingerprint)));
  } else {
    const std::string date = first.run && !first.run->started_utc.empty() ? first.run->started_utc
                             : first.fingerprint.run                      ? first.fingerprint.run->started_utc
                                                                          : "unknown";
    out += fmt::format("<dt>Date</dt><dd>{} (run {}, {})</dd>\n", escape(date),
                       escape(first.run ? first.run->run_id : "unknown"),
                       escape(first.run ? records::to_string(first.run->status) : "status unknown"));
    out += fmt::format("<dt>Host</dt><dd>{}</dd>\n", escape(first.fingerprint.host_line()));
    out += fmt::format("<dt>Doctor</dt><dd>{}", escape(doctor_grade(first.fingerprint)));
    if (const auto& doctor = first.fingerprint.doctor) {
      if (!doctor->grade_reasons.empty()) {
        std::vector<std::string> texts;
        for (const auto& r : doctor->grade_reasons) texts.push_back(escape(r));
        out += fmt::format(": {}", fmt::join(texts, "; "));
      }
      out += doctor_findings(*doctor);
    }
    out += "</dd>\n";
  }
  if (first.fingerprint.run && !d.merged)
    out += fmt::format("<dt>Command</dt><dd><code>{}</code></dd>\n",
                       escape(first.fingerprint.run->command_line));
  out += fmt::format("<dt>Report by</dt><dd>{}</dd>\n</dl>\n</header>\n", escape(generated_by));
  return out;
}

// A long suite's benchmarks are reached from the overview, not listed here.
constexpr std::size_t kNavBenchmarks = 8;

// The sections made before the contents, so that it links only what is there.
struct Sections {
  bool why = false, paired = false, run_order = false;
};

std::string nav(const Analysis& d, const std::vector<PlotBenchmark>& benchmarks, Sections made) {
  std::string out = "<nav aria-label=\"contents\">";
  if (d.judgement) out += "<a href=\"#claims\">Claims</a>";
  if (benchmarks.size() > 1) out += "<a href=\"#overview\">Overview</a>";
  out += "<a href=\"#conditions\">Conditions</a>";
  if (!d.curves.empty()) out += "<a href=\"#sweeps\">Sweeps</a>";
  if (made.why) out += "<a href=\"#why\">Why</a>";
  if (benchmarks.size() > kNavBenchmarks)
    out += fmt::format("<a href=\"#b0\">{} benchmarks (plots)</a>", benchmarks.size());
  else
    for (std::size_t i = 0; i < benchmarks.size(); ++i)
      out += fmt::format("<a href=\"#b{}\">{}</a>", i, escape(benchmarks[i].title));
  if (made.paired) out += "<a href=\"#paired\">Paired</a>";
  if (made.run_order) out += "<a href=\"#run-order\">Run order</a>";
  if (d.merged) out += "<a href=\"#differences\">Differences</a>";
  out += "<a href=\"#fingerprint\">Fingerprint</a></nav>\n";
  return out;
}

std::string label_badge(const Table& t, const std::string& condition) {
  const std::string label(to_string(t.label_of(condition)));
  const auto it = t.labels.find(condition);
  const std::string reason =
      it == t.labels.end() ? "nothing recorded about it" : label_reason_text(it->second.reason);
  return fmt::format("<span class=\"label label-{}\" title=\"{}\">{}</span>", escape(label), escape(reason),
                     escape(label));
}

// ---- the overview: benchmark × condition ----

// One line per benchmark (the suite view's primary lines), one column per condition: the median
// and its ±, the CV and the band, coloured by band; each cell links to its benchmark's plots.
std::string overview_section(const Analysis& d, const std::vector<PlotBenchmark>& benchmarks,
                             const std::map<std::string, std::size_t>& styles) {
  const Table& t = d.table;
  std::vector<const analysis::SuiteLine*> lines;
  const std::vector<analysis::SuiteLine> all = analysis::suite_lines(t);
  for (const auto& l : all)
    if (l.metric == 0) lines.push_back(&l);
  if (benchmarks.size() < 2 || lines.empty()) return "";
  const std::string procs_word = analysis::threads_not_procs(t) ? "threads" : "procs";  // asked once
  std::map<const Row*, std::size_t> sections;  // a row -> the first benchmark that holds it
  for (std::size_t b = benchmarks.size(); b-- > 0;)
    for (const Row* r : benchmarks[b].rows) sections[r] = b;
  const auto section_of = [&](const Row* r) -> std::optional<std::size_t> {
    if (const auto it = sections.find(r); it != sections.end()) return it->second;
    return std::nullopt;
  };
  const auto [tidied, factor] = text::tidy_unit(std::string(lines.front()->unit));
  std::string out = fmt::format(
      "<section id=\"overview\">\n<h2>Overview</h2>\n<p class=\"legend\">{} benchmarks × {} conditions: the "
      "median ± the relative half-width of its 95% interval, the CV and its band. A cell leads to the "
      "benchmark's plots; a label's reason shows on hover.</p>\n<div class=\"wide\">\n<table "
      "class=\"overview\">\n"
      "<thead><tr><th scope=\"col\">benchmark</th>",
      lines.size(), t.conditions.size());
  for (const auto& c : t.conditions)
    out +=
        fmt::format("<th scope=\"col\">{}{}<br>{}</th>", swatch(styles.at(c)), escape(c), label_badge(t, c));
  out += "</tr></thead>\n<tbody>\n";
  for (const analysis::SuiteLine* l : lines) {
    std::vector<double> values;
    for (const Row* r : l->cells)
      if (r != nullptr && r->summary.n > 0) values.push_back(r->summary.median * factor);
    const std::vector<std::string> scaled = text::scale_values(values, tidied);
    std::size_t k = 0;
    const std::string name =
        l->shown_name() + (l->config_label.empty() ? "" : fmt::format(" ({})", l->config_label));
    out += fmt::format("<tr><th scope=\"row\" class=\"bench\">{}</th>", escape(name));
    for (const Row* r : l->cells) {
      if (r == nullptr) {
        out += "<td></td>";
        continue;
      }
      const auto b = section_of(r);
      const std::string band(stats::to_string(r->summary.band));
      const std::string centre = r->summary.n == 0 ? std::string(kDash) : scaled[k++];
      std::string pct;
      if (r->summary.n > 0) {
        if (!r->summary.median_ci)
          pct = " ± ∞";
        else if (r->summary.median_rel_halfwidth)
          pct = fmt::format(" ± {:.1f}%", 100 * *r->summary.median_rel_halfwidth);
      }
      const std::string procs = l->same_procs() || r->procs.size() != 1
                                    ? ""
                                    : fmt::format(" · {} {}", procs_word, r->procs.front());
      out += fmt::format("<td class=\"{}\"><a href=\"#b{}\">{}{}<br><small>CV {}% · {}{}{}</small></a></td>",
                         band_class(band), b.value_or(0), escape(centre), escape(pct),
                         text::fixed(r->summary.cv_pct, 2), escape(band), r->starved ? " · starved" : "",
                         escape(procs));
    }
    out += "</tr>\n";
  }
  out += fmt::format(
      "</tbody>\n</table>\n</div>\n<p class=\"legend\">Values in {} (the primary metric, scaled as "
      "benchstat scales it).</p>\n</section>\n",
      escape(tidied));
  return out;
}

// ---- the condition table ----

std::string conditions_section(const Analysis& d, const std::map<std::string, std::size_t>& styles) {
  const Table& t = d.table;
  std::string out = "<section id=\"conditions\">\n<h2>Conditions</h2>\n";
  const std::vector<const analysis::Row*> rows = analysis::rows_by_benchmark(t);
  std::set<std::string> units;
  for (const auto* r : rows) units.insert(r->unit);
  const std::string unit = units.size() == 1 ? " " + *units.begin() : "";
  out += fmt::format(
      "<div class=\"wide\">\n<table class=\"conditions\">\n<thead><tr><th scope=\"col\">condition</th><th "
      "scope=\"col\">benchmark</th>"
      "<th scope=\"col\">n</th><th scope=\"col\">mean{}</th><th scope=\"col\">stddev</th><th "
      "scope=\"col\">CV%</th>"
      "<th scope=\"col\">median ± 95% CI</th><th scope=\"col\">min</th><th scope=\"col\">max</th>"
      "<th scope=\"col\">rCV%</th><th scope=\"col\">band</th><th "
      "scope=\"col\">flags</th></tr></thead>\n<tbody>\n",
      escape(unit));
  for (const auto* rp : rows) {
    const auto& r = *rp;
    const auto& s = r.summary;
    const std::string bench = analysis::display_name(r);
    std::string mean = format_value(s.mean);
    if (units.size() > 1) mean += " " + r.unit;
    const std::string band(stats::to_string(s.band));
    out += fmt::format(
        "<tr data-condition=\"{0}\"><th scope=\"row\">{1}{0} {14}</th><td class=\"bench\">{2}</td><td "
        "class=\"num\">{3}</td>"
        "<td class=\"num\">{4}</td><td class=\"num\">{5}</td><td class=\"num\">{6}</td><td "
        "class=\"num\">{7}</td>"
        "<td class=\"num\">{8}</td><td class=\"num\">{9}</td><td class=\"num\">{10}</td>"
        "<td class=\"{11}\">{12}</td><td>{13}</td></tr>\n",
        escape(r.condition), swatch(styles.at(r.condition)), breakable(bench), s.n, escape(mean),
        s.stddev ? format_value(*s.stddev) : kDash, text::fixed(s.cv_pct, 2), escape(row_center_text(r)),
        format_value(s.min), format_value(s.max), text::fixed(s.rcv_pct, 2), band_class(band), escape(band),
        flags_html(r), label_badge(t, r.condition));
  }
  out += "</tbody>\n</table>\n</div>\n";
  out += R"(<dl class="legend">
<dt>CV</dt><dd>sample standard deviation (n−1) divided by the mean; rCV = 1.4826·MAD / median, its robust twin.</dd>
<dt>band</dt><dd>by CV: <span class="band band-excellent">excellent</span> ≤ 2% · <span class="band band-acceptable">acceptable</span> ≤ 5% · <span class="band band-noisy">noisy</span> ≤ 10% · <span class="band band-do-not-trust">do not trust</span> &gt; 10% · <span class="band band-insufficient">insufficient</span> no CV: fewer than 2 samples, or a mean of 0.</dd>
<dt>± </dt><dd>the 95% confidence interval of the median (order statistics, as benchstat), relative to the median; ∞ when n &lt; 6.</dd>
)";
  out +=
      fmt::format("<dt>outliers</dt><dd>{}.</dd>\n<dt>drift</dt><dd>{}.</dd>\n<dt>shape</dt><dd>{}.</dd>\n",
                  kOutlierHelp, kDriftHelp, kShapeHelp);
  out +=
      "<dt>warm-up</dt><dd>samples taken first and discarded: they appear hollow in the plots and never in "
      "the "
      "statistics.</dd>\n</dl>\n";
  if (const std::vector<std::string> notes = table_notes(t); !notes.empty()) {
    out += "<h3>Notes</h3>\n<ul class=\"notes\">\n";
    for (const auto& n : notes) out += "<li>" + escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

// ---- why the numbers moved ----

// One factor against the invocations' times: a plain scatter, the axes' ends labelled.
std::string scatter(const analysis::FactorLink& link, const analysis::Factor& factor) {
  constexpr double kW = 360, kH = 200, kLeft = 56, kBottom = 30, kTop = 10, kRight = 10;
  const auto [xmin, xmax] = std::minmax_element(link.factor.begin(), link.factor.end());
  const auto [ymin, ymax] = std::minmax_element(link.times.begin(), link.times.end());
  const double scale = factor.time ? 1e3 : 1;  // times in ms
  const auto span = [](double lo, double hi) { return hi > lo ? hi - lo : 1.0; };
  std::string out = fmt::format(
      "<svg class=\"plot\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{} "
      "against the time per invocation\">\n",
      kW, kH, kW, kH, escape(factor.words));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>", kLeft,
                     kH - kBottom, kW - kRight);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>\n", kLeft, kTop,
                     kH - kBottom);
  for (std::size_t i = 0; i < link.factor.size(); ++i) {
    const double x = kLeft + 6 + (link.factor[i] - *xmin) / span(*xmin, *xmax) * (kW - kLeft - kRight - 12);
    const double y =
        kH - kBottom - 6 - (link.times[i] - *ymin) / span(*ymin, *ymax) * (kH - kBottom - kTop - 12);
    out += svg::marker(svg::Shape::circle, svg::colour_for(0), x, y, 3.5, false, {},
                       fmt::format("{:.4g} {} at {:.4g}{}", link.times[i], link.unit, link.factor[i] * scale,
                                   factor.time ? " ms" : ""));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">{:.4g}</text>", kLeft, kH - 12, *xmin * scale);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{:.4g}</text>",
                     kW - kRight, kH - 12, *xmax * scale);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}{}</text>",
                     (kLeft + kW) / 2, kH - 2, escape(factor.words), factor.time ? " (ms)" : "");
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{:.4g}</text>", kLeft - 4,
                     kH - kBottom, *ymin);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{:.4g}</text>", kLeft - 4,
                     kTop + 8, *ymax);
  out += fmt::format("<text x=\"4\" y=\"{}\" font-size=\"10\">{}</text>\n", kTop + 8, escape(link.unit));
  return out + "</svg>\n";
}

std::string diagnosis_section(const Analysis& d) {
  const analysis::Diagnosis& g = d.diagnosis;
  const std::vector<std::string> lines = diagnosis_lines(g);
  const std::vector<std::string> missing = missing_lines(g.missing);
  if (lines.empty() && missing.empty()) return {};
  std::string out =
      "<section id=\"why\">\n<h2>Why the numbers moved</h2>\n<p class=\"legend\">From this run's own "
      "counters, "
      "read around every invocation (harness/stats/README.md §3.14): association, not proof.</p>\n<ul "
      "class=\"notes\">\n";
  for (const auto& said : {missing, lines})
    for (const auto& line : said) out += "<li>" + escape(line) + "</li>\n";
  out += "</ul>\n";
  // A plot per factor that goes with a condition's spread.
  for (const auto& c : g.conditions)
    for (const auto& link : c.links) {
      if (link.p_adjusted >= analysis::kLinkAlpha) continue;
      const auto f = std::find_if(analysis::kFactors.begin(), analysis::kFactors.end(),
                                  [&](const analysis::Factor& x) { return link.key == x.key; });
      if (f == analysis::kFactors.end()) continue;
      out += fmt::format(
          "<figure>\n{}<figcaption>{} / {}: {} (ρ = {:+.2f}, adjusted p = {:.2g}, n = {})</figcaption>\n"
          "</figure>\n",
          scatter(link, *f), escape(c.condition), escape(link.row), escape(f->words), link.association.rho,
          link.p_adjusted, link.association.n);
    }
  return out + "</section>\n";
}

// ---- per benchmark ----

// Each table row's samples (warm-up included), in run order, found in one pass: every benchmark's
// plots and table read its rows' samples, and searching all samples for each row made the page
// quadratic in rows (a suite of 4000 benchmarks took 45 s).
class RowSamples {
 public:
  explicit RowSamples(const records::Samples& samples) {
    for (const records::SampleRef s : samples) by_[{s.condition, s.name, s.config, s.variant}].push_back(s);
  }
  std::vector<records::SampleRef> of(const Row& row) const {
    std::vector<records::SampleRef> out;
    if (const auto it = by_.find({row.condition, row.name, row.config, row.variant}); it != by_.end())
      for (const records::SampleRef& s : it->second)
        if (analysis::in_row(row, s)) out.push_back(s);
    return out;
  }

 private:
  using Key = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  std::map<Key, std::vector<records::SampleRef>> by_;  // (condition, name, config, variant)
};

struct BenchmarkSeries {
  svg::SeriesPlot strip, order;
  std::size_t samples = 0;
};

BenchmarkSeries series_for(const PlotBenchmark& benchmark, std::size_t b,
                           const std::map<std::string, std::size_t>& styles, const RowSamples& row_samples) {
  BenchmarkSeries out;
  out.strip.id = fmt::format("p{}s", b);
  out.order.id = fmt::format("p{}o", b);
  out.strip.kind = "strip";
  out.order.kind = "run-order";
  out.strip.benchmark = out.order.benchmark = benchmark.title;
  std::vector<std::string> said;
  std::string unit;
  // One series per table row: with variants a condition has a row per variant (colour of the
  // condition, shape of the variant), each with the table's own statistics.
  std::map<std::string, int> shapes;  // condition -> variants seen so far
  for (const Row* row : benchmark.rows) {
    const Row& r = *row;
    if (unit.empty()) unit = r.unit;
    const bool split = !r.variant.empty();
    const int shape = shapes[r.condition]++;
    {
      const stats::Summary& sum = r.summary;
      const std::size_t warmups = r.warmup_discarded;
      const std::string name = split ? r.condition + " · " + r.variant : r.condition;
      svg::Series s;
      s.label = name;
      s.style = styles.at(r.condition);
      if (split) s.shape = shape;
      std::size_t kept = 0;
      for (const records::SampleRef& sample : row_samples.of(r)) {
        svg::Mark m;
        m.value = sample.metrics.front().value;
        m.index = sample.index;
        m.warmup = sample.warmup;
        if (!sample.warmup) {
          m.outlier = kept < sum.outliers.size() && sum.outliers[kept] != stats::Outlier::none;
          ++kept;
        }
        m.id = split ? fmt::format("{}/{}#{}", r.condition, r.variant, sample.index)
                     : fmt::format("{}#{}", r.condition, sample.index);
        m.tooltip =
            fmt::format("{} #{}: {} {}{}{}", name, sample.index, sample.metrics.front().value,
                        sample.metrics.front().unit, sample.warmup ? " (warm-up, not in the statistics)" : "",
                        m.outlier ? " (outlier)" : "");
        s.marks.push_back(std::move(m));
      }
      out.samples += s.marks.size();
      s.median = sum.median;
      s.q1 = sum.q1;
      s.q3 = sum.q3;
      if (sum.median_ci) s.ci_lo = sum.median_ci->lo, s.ci_hi = sum.median_ci->hi;
      svg::Series o = s;
      s.note = sum.n == 0 ? "no kept samples" : "median " + median_ci_text(sum);
      o.note = sum.lag1 ? fmt::format("lag-1 r = {:.2f}{}", *sum.lag1, sum.drift ? " (drift)" : "")
                        : std::string("lag-1 r: n<8");
      said.push_back(
          fmt::format("{}: {} samples{}, median {}{}, CV {}%{}", name, sum.n,
                      warmups ? fmt::format(" plus {} warm-up", warmups) : "", format_value(sum.median),
                      sum.median_ci ? fmt::format(" (95% CI {} to {})", format_value(sum.median_ci->lo),
                                                  format_value(sum.median_ci->hi))
                                    : "",
                      text::fixed(sum.cv_pct, 2), sum.drift ? ", drifting" : ""));
      out.strip.series.push_back(std::move(s));
      out.order.series.push_back(std::move(o));
    }
  }
  out.strip.unit = out.order.unit = unit;
  out.strip.title = fmt::format("{}: every sample per condition ({})", benchmark.title, unit);
  out.order.title = fmt::format("{}: samples in run order per condition ({})", benchmark.title, unit);
  const std::string summary = fmt::format("{}", fmt::join(said, "; "));
  out.strip.desc = fmt::format(
      "Strip plot on a shared {} axis, one row per condition, box from the first to the "
      "third quartile, median bar and 95% CI of the median. {}.",
      unit, summary);
  out.order.desc = fmt::format(
      "Run-order plot, one panel per condition on shared axes; hollow markers are "
      "warm-up samples. {}.",
      summary);
  return out;
}

std::string samples_table(const PlotBenchmark& benchmark, const RowSamples& row_samples) {
  // One column per table row: a condition, or a condition's variant in a paired design.
  std::vector<const Row*> columns;
  struct Cell {
    double value;
    bool warmup;
  };
  std::map<const Row*, std::map<int, Cell>> by;
  int max_index = -1;
  columns.assign(benchmark.rows.begin(), benchmark.rows.end());
  for (const Row* r : columns)
    for (const records::SampleRef& s : row_samples.of(*r)) {
      by[r][s.index] = Cell{s.metrics.front().value, s.warmup};
      max_index = std::max(max_index, s.index);
    }
  std::string out =
      "<details>\n<summary>Every sample as a table</summary>\n<table class=\"samples\">\n<thead><tr>"
      "<th scope=\"col\">#</th>";
  for (const Row* r : columns)
    out += "<th scope=\"col\">" +
           escape(r->variant.empty() ? r->condition : r->condition + " · " + r->variant) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (int i = 0; i <= max_index; ++i) {
    out += fmt::format("<tr><th scope=\"row\">{}</th>", i);
    for (const auto& c : columns) {
      const auto it = by[c].find(i);
      if (it == by[c].end())
        out += "<td></td>";
      else if (it->second.warmup)
        out += fmt::format("<td class=\"num warm\">{} (warm-up)</td>", it->second.value);
      else
        out += fmt::format("<td class=\"num\">{}</td>", it->second.value);
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n</details>\n";
}

std::string benchmark_section(const PlotBenchmark& benchmark, std::size_t b,
                              const std::map<std::string, std::size_t>& styles,
                              const RowSamples& row_samples) {
  const BenchmarkSeries s = series_for(benchmark, b, styles, row_samples);
  std::string out = fmt::format(
      "<section id=\"b{}\" class=\"benchmark\" data-benchmark=\"{}\">\n<h2>{} <small>({})</small></h2>\n", b,
      escape(benchmark.title), escape(benchmark.title), escape(s.strip.unit));
  out += "<figure>\n" + svg::strip_plot(s.strip);
  out += fmt::format(
      "<figcaption>Every sample ({}), one row per condition on a shared axis; vertical position is jitter "
      "only. Grey "
      "box: quartiles. Black bar: median. Thick line below: 95% CI of the median. Hollow: warm-up (not in "
      "the "
      "statistics). Ringed: outlier.</figcaption>\n</figure>\n",
      s.samples);
  out += "<figure>\n" + svg::run_order_plot(s.order);
  out +=
      "<figcaption>The same samples in the order they were taken, one panel per condition (shared axes). A "
      "trend is drift (thermal, background load); a shaded start is the warm-up. Dashed: median of the kept "
      "samples.</figcaption>\n</figure>\n";
  out += samples_table(benchmark, row_samples);
  return out + "</section>\n";
}

// ---- paired ----

// The section's heading and legend: paired or separate blocks, and which side of 1 is better.
std::string paired_legend(const Analysis& d) {
  const bool blocks = d.comparison && d.comparison->blocks;
  // Which side of 1 is better depends on the unit compared (a throughput above 1 is faster).
  std::set<std::string> words;
  for (const auto& p : d.paired.rows)
    words.insert(
        std::string(to_string(analysis::verdict_word(stats::Verdict::faster, p.better, p.quantity))));
  const std::string side = words.size() == 1 ? fmt::format("so below 1 is {}.", *words.begin())
                                             : "so below 1 is lower (see each row's unit).";
  return std::string(
             blocks
                 ? "<section id=\"paired\">\n<h2>Unpaired comparisons (design: blocks)</h2>\n<p "
                   "class=\"legend\">Each variant's repeats ran in a block of its own (no pairs); the ratio "
                   "is variant / baseline (Hodges–Lehmann), "
                 : "<section id=\"paired\">\n<h2>Paired comparisons</h2>\n<p class=\"legend\">Each repeat "
                   "runs baseline and variant back to back (order AB or BA); the ratio is variant / "
                   "baseline, ") +
         side +
         " The diamond is the geometric mean with its 95% CI; the grey band is the "
         "A/A band 1 ± θ, the ratio the baseline shows against itself: a difference inside it is "
         "noise.</p>\n";
}

// The A/A θ of a benchmark in a condition, else of the benchmark in any condition (NaN: none).
double aa_theta(const std::vector<analysis::AaRow>& aa, const std::string& condition,
                const std::string& benchmark) {
  double fallback = svg::kNaN;
  for (const auto& a : aa) {
    if (a.condition == condition && a.benchmark == benchmark) return a.theta;
    if (std::isnan(fallback) && a.benchmark == benchmark) fallback = a.theta;
  }
  return fallback;
}

// A paired row's place in the ratio plot (its id the k-th of its benchmark's).
svg::RatioRow ratio_row(const analysis::PairedRow& p, double theta, std::size_t k) {
  svg::RatioRow row;
  row.label = p.condition + "\n" + (p.aa ? "A/A: " + p.baseline : p.variant + " / " + p.baseline);
  // Separate blocks (design: blocks) have no per-repeat ratios and no geometric mean.
  row.gm = p.unpaired ? svg::kNaN : p.paired.gm;
  row.gm_lo = p.unpaired ? svg::kNaN : p.paired.gm_lo;
  row.gm_hi = p.unpaired ? svg::kNaN : p.paired.gm_hi;
  if (!p.unpaired) {
    row.ratios = p.paired.ratios;
    row.order = p.order;
  }
  row.theta = theta;
  row.note = fmt::format("gm {} · {}", text::fixed(row.gm, 4), to_string(p.verdict_word()));
  row.id_prefix = fmt::format("{}/{}", p.condition, k);
  return row;
}

// A paired row's line of its benchmark's table.
std::string paired_row_html(const analysis::PairedRow& p, const svg::RatioRow& row) {
  return fmt::format(
      "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
      "class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
      escape(p.condition), escape(p.baseline), escape(p.aa ? "A/A" : p.variant),
      escape(std::string(to_string(p.label))), row.ratios.size(), text::fixed(row.gm, 4),
      escape(text::interval(row.gm_lo, row.gm_hi)), text::fixed(p.unpaired ? svg::kNaN : p.paired.median, 4),
      p.unpaired ? kDash : g4(p.paired.p_wilcoxon), p.unpaired ? kDash : g4(p.paired.p_sign),
      !p.unpaired && p.paired.order_effect_p ? g4(*p.paired.order_effect_p) : kDash,
      escape(std::string(to_string(p.verdict_word()))), p.trustworthy ? "yes" : "no");
}

// One benchmark's paired rows: the ratio plot (id r<index>), then their table.
std::string paired_benchmark(const Analysis& d, const std::string& b, std::size_t index) {
  svg::RatioPlot plot;
  plot.id = fmt::format("r{}", index);
  plot.benchmark = b;
  plot.title = fmt::format("{}: paired ratios per repeat", b);
  std::vector<std::string> said;
  std::string rows;
  std::size_t k = 0;
  for (const auto& p : d.paired.rows) {
    if (p.benchmark != b) continue;
    svg::RatioRow row = ratio_row(p, aa_theta(d.paired.aa, p.condition, b), k++);
    said.push_back(fmt::format("{} {}: geometric mean {} (95% CI {}), {}", p.condition,
                               p.aa ? "A/A" : p.variant + " vs " + p.baseline, text::fixed(row.gm, 4),
                               text::interval(row.gm_lo, row.gm_hi), to_string(p.verdict_word())));
    rows += paired_row_html(p, row);
    plot.rows.push_back(std::move(row));
  }
  plot.desc = fmt::format("{}.", fmt::join(said, "; "));
  return fmt::format(
             "<h3>{}</h3>\n<figure>\n{}<figcaption>Circles: repeats run AB; triangles: BA. Diamond and "
             "thick line: geometric mean and its 95% CI. Grey band: A/A ±θ. Dashed: 1 (no "
             "difference).</figcaption>\n</figure>\n",
             escape(b), svg::ratio_plot(plot)) +
         "<div class=\"wide\">\n<table class=\"paired\">\n<thead><tr><th scope=\"col\">condition</th><th "
         "scope=\"col\">baseline</th>"
         "<th scope=\"col\">variant</th><th scope=\"col\">label</th><th scope=\"col\">repeats</th>"
         "<th scope=\"col\">gm</th><th scope=\"col\">gm 95% CI</th><th scope=\"col\">median</th>"
         "<th scope=\"col\">p (Wilcoxon)</th><th scope=\"col\">p (sign)</th><th scope=\"col\">order effect "
         "p</th>"
         "<th scope=\"col\">verdict</th><th scope=\"col\">trustworthy</th></tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table>\n</div>\n";
}

std::string aa_table(const std::vector<analysis::AaRow>& aa) {
  std::string out =
      "<h3>A/A checks</h3>\n<table class=\"aa\">\n<thead><tr><th scope=\"col\">condition</th>"
      "<th scope=\"col\">benchmark</th><th scope=\"col\">outcome</th><th scope=\"col\">gm 95% CI</th>"
      "<th scope=\"col\">median ratio</th><th scope=\"col\">max |ratio − 1|</th><th scope=\"col\">CI "
      "half-width</th><th scope=\"col\">θ</th></tr></thead>\n<tbody>\n";
  for (const auto& a : aa) {
    const std::string outcome(stats::to_string(a.check.outcome));
    out += fmt::format(
        "<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"{}\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td></tr>\n",
        escape(a.condition), escape(a.benchmark),
        a.check.outcome == stats::AaOutcome::pass ? "outcome-pass" : "outcome-fail", escape(outcome),
        escape(text::interval(a.check.gm_lo, a.check.gm_hi)), text::fixed(a.check.median_ratio, 4),
        text::fixed(a.check.max_abs_dev, 4), text::fixed(a.check.halfwidth, 4), text::fixed(a.theta, 4));
  }
  return out + "</tbody>\n</table>\n";
}

std::string paired_section(const Analysis& d) {
  if (d.paired.rows.empty() && d.paired.aa.empty()) return "";
  std::string out = paired_legend(d);
  std::vector<std::string> benchmarks;
  for (const auto& p : d.paired.rows)
    if (std::find(benchmarks.begin(), benchmarks.end(), p.benchmark) == benchmarks.end())
      benchmarks.push_back(p.benchmark);
  for (std::size_t bi = 0; bi < benchmarks.size(); ++bi) out += paired_benchmark(d, benchmarks[bi], bi);
  if (!d.paired.aa.empty()) out += aa_table(d.paired.aa);
  return out + "</section>\n";
}

// ---- fingerprint ----

void flatten(const json& j, const std::string& path, std::string& rows, std::size_t& count) {
  const bool fact = j.is_object() && j.contains("value");
  if (j.is_object() && !fact) {
    for (const auto& [k, v] : j.items()) flatten(v, path.empty() ? k : path + "." + k, rows, count);
    return;
  }
  ++count;
  std::string value;
  if (fact && j["value"].is_null()) {
    value = "<span class=\"unknown\">unknown" +
            (j.contains("unknown") ? " (" + escape(text_of(j["unknown"])) + ")" : std::string()) + "</span>";
  } else {
    value = escape(text_of(fact ? j["value"] : j));
    if (fact)
      for (const char* extra : {"evidence", "note", "source", "kind"})
        if (j.contains(extra))
          value += fmt::format(" <span class=\"unknown\">{}: {}</span>", extra, escape(text_of(j[extra])));
  }
  rows += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape(path), value);
}

std::string fingerprint_table(const records::Fingerprint& fingerprint, const std::string& what) {
  const json fp = fingerprint;  // every fact as recorded
  std::string rows;
  std::size_t count = 0;
  flatten(fp, "", rows, count);
  return fmt::format(
      "<details>\n<summary>{} ({} facts)</summary>\n<table class=\"fp\">\n<thead><tr><th "
      "scope=\"col\">field</th><th scope=\"col\">value</th></tr></thead>\n<tbody>\n{}</tbody>\n"
      "</table>\n</details>\n",
      escape(what), count, rows);
}

std::string differences_section(const Analysis& d) {
  if (!d.merged) return "";
  std::string out = "<section id=\"differences\">\n<h2>Differences between the results</h2>\n";
  if (d.differences.empty()) {
    out += "<p class=\"banner ok\">The fingerprints agree (volatile fields such as the load aside).</p>\n";
  } else if (!d.comparable()) {
    out +=
        "<p class=\"banner\" role=\"alert\">Not comparable: these results differ in fields that move "
        "benchmarks "
        "(marked ⚠ below). Compare CVs, not values, or rerun on one host; pass --allow-different-hosts to "
        "compare anyway.</p>\n";
  } else if (d.allow_different_hosts) {
    out += "<p class=\"banner\">Compared anyway (--allow-different-hosts): read the differences first.</p>\n";
  }
  if (!d.differences.empty()) {
    out += fmt::format(
        "<table class=\"differences\">\n<thead><tr><th scope=\"col\">field</th><th scope=\"col\">{}</th>"
        "<th scope=\"col\">other</th><th scope=\"col\">other result</th><th scope=\"col\">moves "
        "benchmarks</th></tr></thead>\n<tbody>\n",
        escape(d.sources.front().label));
    for (std::size_t i = 0; i < d.differences.size(); ++i) {
      const auto& x = d.differences[i];
      const std::size_t k = d.difference_source[i];
      out += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         x.moves_benchmarks ? " class=\"moves\"" : "", escape(x.field), escape(x.a),
                         escape(x.b), escape(d.sources[k].label), x.moves_benchmarks ? "⚠ yes" : "no");
    }
    out += "</tbody>\n</table>\n";
  }
  return out + "</section>\n";
}

std::string fingerprint_section(const Analysis& d) {
  std::string out =
      "<section id=\"fingerprint\">\n<h2>Fingerprint</h2>\n<p class=\"legend\">Everything noisefloor "
      "probed about the host, toolchain and environment when the run started (fingerprint.json). "
      "Unknown facts say why.</p>\n";
  if (d.merged)
    for (const auto& s : d.sources) out += fingerprint_table(s.fingerprint, "Fingerprint of " + s.label);
  else
    out += fingerprint_table(d.sources.front().fingerprint, "Full fingerprint");
  return out + "</section>\n";
}

// ---- sweeps ----

// Each sweep group as its figure (render/sweep_plot.hpp, inline), the knee of each curve in words
// under it.
std::string sweeps_section(const Analysis& d) {
  if (d.curves.empty()) return "";
  std::string out =
      "<section id=\"sweeps\">\n<h2>Sweeps</h2>\n<p>Each swept condition as curves against the swept "
      "setting: (a) the median with its 95% CI, (b) the CV with its 95% bootstrap interval; the knee is "
      "the first point that leaves the first point's 95% median CI or has a worse CV band.</p>\n";
  const std::string host = d.sources.empty() ? "" : d.sources.front().fingerprint.host_line();
  const auto groups = sweep_groups(d.curves);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += fmt::format("<figure id=\"sweep-{}\">\n", g);
    out +=
        sweep_plot(d.curves, groups[g], {.host = host, .standalone = false, .id = fmt::format("sweep{}", g)});
    out += "<figcaption>";
    bool first = true;
    for (const auto& c : d.curves) {
      if (c.group != groups[g]) continue;
      out += fmt::format("{}<strong>{}{}</strong>: {}", first ? "" : "<br>\n", escape(c.benchmark),
                         c.series.empty() ? "" : " · " + escape(c.series), escape(knee_text(c)));
      first = false;
    }
    out += "</figcaption>\n</figure>\n";
  }
  return out + "</section>\n";
}

// ---- the run order ----

std::string load_text(const std::optional<fingerprint::LoadReading>& load) {
  if (!load) return std::string(kDash);
  if (!load->value) return "unknown";
  return fmt::format("{:.2f} ({} running)", load->value->one, load->value->running);
}

// Every block of every condition in the order it ran: an interleaved schedule's turns, what the
// machine's load was when a condition was entered and once it had settled, and how much CPU the
// spinners got. Nothing without run records (0.1 results have them; go test files do not).
std::string run_order_section(const Analysis& d) {
  std::string rows;
  for (const auto& source : d.sources) {
    if (!source.run) continue;
    for (const auto& block : source.run->condition_records) {
      std::string spinners(kDash);
      std::optional<double> least;
      for (const auto& load : block.spinner_load)
        if (const auto share = load.share()) least = std::min(least.value_or(*share), *share);
      if (least)
        spinners = fmt::format("{:.0f}% (of {:.0f}% possible)", 100 * *least,
                               100 * block.spinner_load.front().expected_share);
      const std::string name =
          d.merged ? analysis::merged_condition(source.label, block.condition) : block.condition;
      rows += fmt::format(
          "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td>"
          "<td class=\"num\">{}</td><td>{}</td></tr>\n",
          block.block + 1, escape(name), escape(block.started_utc),
          block.load_settled ? fmt::format("{:g} s", block.settle_seconds) : std::string(kDash),
          escape(load_text(block.load_before)), escape(load_text(block.load_settled)), block.runs.size(),
          escape(spinners));
    }
  }
  if (rows.empty()) return "";
  return "<section id=\"run-order\">\n<h2>Run order</h2>\n<p>Every block of a condition in the order it ran: "
         "a condition was entered, allowed to settle (its spinners spinning), its load read, then sampled. "
         "Samples right after another condition can inherit its disturbance; the settle time is there for "
         "that. Spinners' CPU share is the least any spinner got while the benchmark ran.</p>\n"
         "<div class=\"wide\"><table class=\"run-order\">\n<thead><tr><th scope=\"col\">#</th><th "
         "scope=\"col\">condition</th><th scope=\"col\">entered (UTC)</th><th scope=\"col\">settle</th><th "
         "scope=\"col\">1-min load at entry</th><th scope=\"col\">after settling</th><th "
         "scope=\"col\">runs</th><th scope=\"col\">spinners' CPU share</th></tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table></div>\n</section>\n";
}

}  // namespace

// A run on several hosts: its hosts side by side, each cell that host's own median and CV.
static std::string hosts_section(const std::vector<HostColumn>& hosts) {
  if (hosts.empty()) return "";
  const SideBySide t = side_by_side(hosts);
  std::string out = "<section id=\"hosts\">\n<h2>Hosts</h2>\n<table>\n<thead><tr>";
  for (const auto& h : t.head) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + escape(c) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n<p class=\"legend\">" + escape(t.legend) +
         ". Below, each condition is named &lt;host&gt;:&lt;condition&gt;.</p>\n";
  for (const auto& p : t.problems) out += "<p class=\"banner\" role=\"alert\">" + escape(p) + "</p>\n";
  return out + "</section>\n";
}

std::string html(const Analysis& d, std::string_view generated_by) { return html(d, generated_by, {}); }

std::string html(const Analysis& d, std::string_view generated_by, const std::vector<HostColumn>& hosts) {
  const auto styles = styles_of(d.table);
  const auto benchmarks = benchmarks_of(d.table);
  const std::string why = diagnosis_section(d);
  const std::string paired = paired_section(d);
  const std::string run_order = run_order_section(d);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched: a report opened offline or attached to an issue looks the same.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<meta name=\"generator\" content=\"{}\">\n", escape(generated_by));
  out += fmt::format("<title>{} — noisefloor report</title>\n<style>{}</style>\n</head>\n<body>\n",
                     escape(d.title()), kReportStyle);
  out += header(d, generated_by);
  out +=
      nav(d, benchmarks, {.why = !why.empty(), .paired = !paired.empty(), .run_order = !run_order.empty()});
  out += hosts_section(hosts);
  if (!d.comparable())
    out +=
        "<p class=\"banner\" role=\"alert\">Not comparable: the merged results come from different hosts or "
        "toolchains (see <a href=\"#differences\">Differences</a>).</p>\n";
  if (const auto warnings = warning_texts(d); !warnings.empty()) {
    out += "<section class=\"warnings\" aria-label=\"warnings\">\n<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : warnings) out += "<li>" + escape(w) + "</li>\n";
    out += "</ul>\n</section>\n";
  }
  // What the replay set out to show comes first: the claims' verdicts, the publication beside.
  if (d.judgement) out += judgement_html(*d.judgement, d.table.rows.empty() ? "" : d.table.rows.front().unit);
  out += overview_section(d, benchmarks, styles);
  out += conditions_section(d, styles);
  out += sweeps_section(d);
  out += why;
  const RowSamples row_samples(d.samples);
  for (std::size_t b = 0; b < benchmarks.size(); ++b)
    out += benchmark_section(benchmarks[b], b, styles, row_samples);
  out += paired;
  out += run_order;
  out += differences_section(d);
  out += fingerprint_section(d);
  out += fmt::format(
      "<footer>Generated by {}. Self-contained: no script, no web font, nothing fetched.</footer>\n",
      escape(generated_by));
  return out + "</body>\n</html>\n";
}

std::string_view report_style() { return kReportStyle; }

}  // namespace noisefloor::render
