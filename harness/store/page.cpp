#include "store/page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "claims/evaluate.hpp"
#include "model/names.hpp"
#include "render/html.hpp"
#include "stats/change_points.hpp"
#include "stats/summary.hpp"
#include "text/text.hpp"

namespace noisefloor::store {
namespace {

using text::html_escape;

constexpr const char* kStoreStyle = R"(
svg.cv{width:100%;max-width:760px;height:auto;display:block}svg .box{fill:#d4e8f5;stroke:#0072b2}
svg .median{stroke:#d55e00;stroke-width:2}svg .machine-mark{fill:#0072b2;fill-opacity:.55}
svg.series{width:260px;height:48px}svg .trend{fill:none;stroke:#333;stroke-width:1.2}svg .trend-point{fill:#333}svg .change-point{stroke:#d55e00;stroke-width:1.5;stroke-dasharray:3 2}
form.filters{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:end;margin:.6rem 0}form.filters label{display:flex;flex-direction:column;font-size:.85rem}
)";

std::string head(const std::string& title) {
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{}{}</style></head><body>\n",
      html_escape(title), render::report_style(), kStoreStyle);
}

std::string foot(const std::string& generated_by) {
  return fmt::format("<footer>{}</footer>\n</body></html>\n", html_escape(generated_by));
}

bool passes(const Machine& m, const PageFilter& f) {
  return (f.vendor.empty() || m.fact("cpu_vendor") == f.vendor) &&
         (f.cores.empty() || m.fact("logical_cpus") == f.cores) &&
         (f.virtualization.empty() || m.fact("virtualization") == f.virtualization);
}

// What the filters let through: machines by their facts and, with an engine chosen, the runs made
// with it (and the machines that have one).
struct Shown {
  std::set<std::string> machines;
  std::optional<std::set<std::string>> runs;  // nullopt: every run of those machines
  bool has(const std::string& machine, const std::string& run) const {
    return machines.count(machine) && (!runs || runs->count(run));
  }
};

Shown shown(const ExperimentPage& p) {
  Shown s;
  std::set<std::string> with_engine;
  if (!p.filter.engine.empty()) {
    s.runs.emplace();
    for (const CvPoint& pt : p.points)
      if (pt.engine == p.filter.engine) s.runs->insert(pt.run), with_engine.insert(pt.machine);
  }
  for (const Machine& m : p.machines)
    if (passes(m, p.filter) && (!s.runs || with_engine.count(m.id))) s.machines.insert(m.id);
  return s;
}

std::string select(const char* name, const char* label, const std::set<std::string>& values,
                   const std::string& chosen) {
  std::string out = fmt::format("<label>{}<select name=\"{}\"><option value=\"\">any</option>", label, name);
  for (const auto& v : values)
    out += fmt::format("<option{}>{}</option>", v == chosen ? " selected" : "", html_escape(v));
  return out + "</select></label>";
}

std::string filters_form(const ExperimentPage& p) {
  std::set<std::string> vendors, cores, virt, engines;
  for (const auto& m : p.machines) {
    vendors.insert(m.fact("cpu_vendor"));
    cores.insert(m.fact("logical_cpus"));
    virt.insert(m.fact("virtualization"));
  }
  for (const auto& pt : p.points) engines.insert(pt.engine);
  return "<form class=\"filters\" method=\"get\">" +
         select("vendor", "CPU vendor", vendors, p.filter.vendor) +
         select("cores", "logical CPUs", cores, p.filter.cores) +
         select("virtualization", "virtualization", virt, p.filter.virtualization) +
         select("engine", "engine", engines, p.filter.engine) + "<button>filter</button></form>\n";
}

// condition + " / " + benchmark: a series of the page.
struct SeriesKey {
  std::string condition, benchmark, unit;
  friend auto operator<=>(const SeriesKey&, const SeriesKey&) = default;
};

struct Spread {
  std::vector<std::pair<std::string, double>> marks;  // machine, its median CV
  double q1 = 0, median = 0, q3 = 0;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return stats::quantile_type7(v, 0.5);
}

// Per condition × benchmark: each machine's median CV over its runs, and their quartiles.
std::map<SeriesKey, Spread> spreads(const ExperimentPage& p, const Shown& shown) {
  std::map<SeriesKey, std::map<std::string, std::vector<double>>> cvs;
  for (const CvPoint& pt : p.points)
    if (pt.cv_pct && shown.has(pt.machine, pt.run))
      cvs[{pt.condition, pt.benchmark, pt.unit}][pt.machine].push_back(*pt.cv_pct);
  std::map<SeriesKey, Spread> out;
  for (auto& [key, by_machine] : cvs) {
    Spread s;
    std::vector<double> all;
    for (auto& [machine, values] : by_machine) {
      s.marks.emplace_back(machine, median_of(values));
      all.push_back(s.marks.back().second);
    }
    std::sort(all.begin(), all.end());
    s.q1 = stats::quantile_type7(all, 0.25);
    s.median = stats::quantile_type7(all, 0.5);
    s.q3 = stats::quantile_type7(all, 0.75);
    out.emplace(key, std::move(s));
  }
  return out;
}

// The axis every strip shares, so that conditions compare at a glance: 0 to a round value (1, 2 or 5
// times a power of ten, in 4 or 5 steps) above every mark.
struct Axis {
  double top = 1, step = 0.25;
};
Axis axis_for(const std::map<SeriesKey, Spread>& all) {
  double most = 0;
  for (const auto& [key, s] : all)
    for (const auto& [m, v] : s.marks) most = std::max(most, v);
  if (!(most > 0) || !std::isfinite(most * 10)) return {};
  const double raw = most / 4, power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * power;
  for (const double f : {1.0, 2.0, 5.0})
    if (f * power >= raw) {
      step = f * power;
      break;
    }
  return {step * std::ceil(most / step), step};
}

// A horizontal strip: the quartile box, the median, a mark per machine (jittered by its order).
std::string spread_svg(const SeriesKey& key, const Spread& s, const Axis& axis) {
  const auto x = [&axis](double v) { return 40 + 680 * v / axis.top; };
  std::string out = fmt::format(
      "<svg class=\"cv\" viewBox=\"0 0 760 90\" role=\"img\" data-condition=\"{}\" data-median=\"{}\" "
      "aria-label=\"CV across machines\"><rect class=\"box\" x=\"{:.1f}\" y=\"20\" width=\"{:.1f}\" "
      "height=\"40\"/>"
      "<line class=\"median\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"16\" y2=\"64\"/>",
      html_escape(key.condition), text::shortest(s.median), x(s.q1), std::max(1.0, x(s.q3) - x(s.q1)),
      x(s.median), x(s.median));
  for (std::size_t i = 0; i < s.marks.size(); ++i)
    out += fmt::format(
        "<circle class=\"machine-mark\" cx=\"{:.1f}\" cy=\"{}\" r=\"4\"><title>{}: CV "
        "{:.2f}%</title></circle>",
        x(s.marks[i].second), 26 + static_cast<int>((i * 7) % 29), html_escape(s.marks[i].first),
        s.marks[i].second);
  const long ticks = std::lround(axis.top / axis.step);  // 4 or 5
  for (long i = 0; i <= std::min(ticks, 10L); ++i)
    out += fmt::format("<text x=\"{:.1f}\" y=\"82\" font-size=\"11\" text-anchor=\"middle\">{}%</text>",
                       x(static_cast<double>(i) * axis.step),
                       text::shortest(static_cast<double>(i) * axis.step));
  return out + "</svg>";
}

std::string cv_section(const std::map<SeriesKey, Spread>& all) {
  std::string out = "<h2 id=\"cv\">Each condition's CV across machines</h2>\n";
  if (all.empty()) return out + "<p class=\"unknown\">no run with a CV (n ≥ 2) matches the filters</p>\n";
  out +=
      "<table><tr><th>condition</th><th>benchmark</th><th>machines</th><th>CV: Q1</th><th>median</th>"
      "<th>Q3</th></tr>\n";
  for (const auto& [key, s] : all)
    out += fmt::format(
        "<tr><td>{}</td><td class=\"bench\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{:.2f}%</td><td "
        "class=\"num\">{:.2f}%</td><td class=\"num\">{:.2f}%</td></tr>\n",
        html_escape(key.condition), html_escape(key.benchmark), s.marks.size(), s.q1, s.median, s.q3);
  out += "</table>\n";
  const Axis axis = axis_for(all);
  for (const auto& [key, s] : all)
    out += fmt::format(
        "<figure>{}<figcaption>{} / {}: the box spans the middle half of the machines, the line is "
        "their median, a dot is one machine (the median CV of its runs)</figcaption></figure>\n",
        spread_svg(key, s, axis), html_escape(key.condition), html_escape(key.benchmark));
  return out;
}

std::string claims_section(const ExperimentPage& p, const Shown& shown) {
  std::string out = "<h2 id=\"claims\">The claims, across machines</h2>\n";
  // Each machine's latest verdict on each claim (the rows come in time order per machine).
  std::map<std::string, std::map<std::string, std::string>> latest;  // claim → machine → verdict
  for (const ClaimVerdict& c : p.claims)
    if (shown.has(c.machine, c.run)) latest[c.claim][c.machine] = c.verdict;
  if (latest.empty()) return out + "<p class=\"unknown\">the runs record no claims</p>\n";
  // A column per verdict, in the order of its table of names; a name that is none of them is not counted.
  constexpr auto kVerdicts = names(claims::Verdict{});
  out += "<table class=\"claims\"><tr><th>claim</th>";
  for (const auto& [verdict, name] : kVerdicts) out += fmt::format("<th>{}</th>", name);
  out += "</tr>\n";
  for (const auto& [claim, by_machine] : latest) {
    std::map<claims::Verdict, int> tally;
    for (const auto& [m, verdict] : by_machine)
      if (const auto v = model::from_name<claims::Verdict>(verdict)) ++tally[*v];
    out += fmt::format("<tr><td><code>{}</code></td>", html_escape(claim));
    for (const auto& [verdict, name] : kVerdicts)
      out += fmt::format("<td class=\"num\">{}</td>", tally[verdict]);
    out += "</tr>\n";
  }
  return out + "</table>\n<p class=\"notes\">A machine counts once: its latest run's verdict.</p>\n";
}

// A machine's medians of one series in time order, with a dashed line where a new level starts.
std::string series_svg(const std::vector<double>& medians) {
  const auto [lo_it, hi_it] = std::minmax_element(medians.begin(), medians.end());
  const double lo = *lo_it, span = *hi_it - *lo_it > 0 ? *hi_it - *lo_it : 1;
  const double step = medians.size() > 1 ? 250.0 / static_cast<double>(medians.size() - 1) : 0;
  std::string points;
  for (std::size_t i = 0; i < medians.size(); ++i)
    points +=
        fmt::format("{:.1f},{:.1f} ", 5 + step * static_cast<double>(i), 43 - 38 * (medians[i] - lo) / span);
  std::string out = fmt::format(
      "<svg class=\"series\" viewBox=\"0 0 260 48\"><polyline class=\"trend\" points=\"{}\"/>", points);
  if (medians.size() == 1) out += "<circle class=\"trend-point\" cx=\"5\" cy=\"24\" r=\"3\"/>";
  const auto found = stats::change_points(medians, {kPageWindow, kPagePvalue, kPageMagnitude});
  for (const auto& cp : found) {
    const double at = 5 + step * (static_cast<double>(cp.index) - 0.5);
    out += fmt::format(
        "<line class=\"change-point\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"2\" y2=\"46\"><title>new level "
        "from run {1}: {2} → {3}</title></line>",
        at, cp.index + 1, text::shortest(cp.test.mean_before), text::shortest(cp.test.mean_after));
  }
  return out + "</svg>";
}

std::string machines_section(const ExperimentPage& p, const Shown& shown) {
  std::string out =
      "<h2 id=\"machines\">Each machine's runs over time</h2>\n<p class=\"notes\">A machine is a digest of "
      "the "
      "facts below (README: Crowd replays); the line is each run's median, a dashed line a change point "
      "(E-Divisive means, window 30, p 0.01, 5%).</p>\n<div "
      "class=\"wide\"><table><tr><th>machine</th><th>CPU</th>"
      "<th>logical CPUs</th><th>kernel</th><th>virtualization</th><th>memory</th><th>series</th></tr>\n";
  // Each machine's series, in one pass over the points (they come by machine, then time).
  std::map<std::string, std::map<SeriesKey, std::vector<double>>> by_machine;
  for (const CvPoint& pt : p.points)
    if (shown.has(pt.machine, pt.run))
      by_machine[pt.machine][{pt.condition, pt.benchmark, pt.unit}].push_back(pt.median);
  for (const Machine& m : p.machines) {
    if (!shown.machines.count(m.id)) continue;
    const auto& series = by_machine[m.id];
    std::string cells;
    for (const auto& [key, medians] : series)
      cells += fmt::format("<div>{} / {} ({} run{})<br>{}</div>", html_escape(key.condition),
                           html_escape(key.benchmark), medians.size(), medians.size() == 1 ? "" : "s",
                           series_svg(medians));
    out += fmt::format(
        "<tr id=\"m-{0}\"><td><code>{0}</code></td><td>{1} {2}</td><td "
        "class=\"num\">{3}</td><td>{4}</td><td>{5}</td>"
        "<td class=\"num\">{6} GiB</td><td>{7}</td></tr>\n",
        html_escape(m.id), html_escape(m.fact("cpu_vendor")), html_escape(m.fact("cpu_model")),
        html_escape(m.fact("logical_cpus")), html_escape(m.fact("kernel")),
        html_escape(m.fact("virtualization")), html_escape(m.fact("memory_gib")), cells);
  }
  return out + "</table></div>\n";
}

std::string gates_section(const ExperimentPage& p, const Shown& shown) {
  if (p.gates.empty()) return "";
  std::string out =
      "<h2 id=\"gates\">Gate results per commit</h2>\n<table><tr><th>base..head</th><th>machine</th>"
      "<th>started</th><th>verdict</th></tr>\n";
  for (const GateResult& g : p.gates)
    if (shown.has(g.machine, g.run))
      out += fmt::format("<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                         html_escape(g.gate), html_escape(g.machine), html_escape(g.started_utc),
                         html_escape(model::name_of(g.verdict)));
  return out + "</table>\n";
}

}  // namespace

std::string url_part(std::string_view s) {
  std::string out;
  for (const unsigned char c : s)
    out += std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~'
               ? std::string(1, static_cast<char>(c))
               : fmt::format("%{:02X}", c);
  return out;
}

std::string index_page(const std::vector<records::ExperimentCount>& experiments,
                       const std::string& generated_by) {
  std::string out = head("noisefloor store") + "<h1>noisefloor store</h1>\n";
  if (experiments.empty())
    out += "<p>Nothing is published yet: <code>noisefloor publish results/EXPERIMENT --to URL</code>.</p>\n";
  else
    out += "<table><tr><th>experiment</th><th>runs</th><th>machines</th></tr>\n";
  for (const auto& e : experiments)
    out += fmt::format(
        "<tr><td><a href=\"/e/{}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        url_part(e.name), html_escape(e.name), e.runs, e.machines);
  if (!experiments.empty()) out += "</table>\n";
  return out + foot(generated_by);
}

std::string experiment_page(const ExperimentPage& p, const std::string& generated_by) {
  const Shown s = shown(p);
  std::string out = head(p.experiment + " · noisefloor store");
  out += fmt::format(
      "<p><a href=\"/\">store</a></p><h1>{}</h1>\n<p>{} machine{}{}; raw runs as JSON: <a "
      "href=\"/api/v1/runs?experiment={}\">/api/v1/runs</a></p>\n",
      html_escape(p.experiment), s.machines.size(), s.machines.size() == 1 ? "" : "s",
      p.filter == PageFilter{} ? "" : fmt::format(" of {} (filtered)", p.machines.size()),
      url_part(p.experiment));
  out += filters_form(p);
  out +=
      "<nav><a href=\"#cv\">CV across machines</a><a href=\"#claims\">claims</a><a "
      "href=\"#machines\">machines</a>" +
      std::string(p.gates.empty() ? "" : "<a href=\"#gates\">gates</a>") + "</nav>\n";
  out += cv_section(spreads(p, s));
  out += claims_section(p, s);
  out += machines_section(p, s);
  out += gates_section(p, s);
  return out + foot(generated_by);
}

}  // namespace noisefloor::store
