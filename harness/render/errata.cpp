#include "render/errata.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/labels.hpp"
#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

using analysis::Certainty;
using analysis::Doubt;
using analysis::Figure;
using analysis::FigureKind;
using analysis::Statistic;

// A figure's statistic as the errata name it: "median", "CV", "ratio to idle", "ratio thrice/once"
// (a format of the figure's unit and sides).
constexpr std::array<std::pair<Statistic, std::string_view>, 7> kStatistics = {{
    {Statistic::median, "median"},
    {Statistic::median_halfwidth, "median ±"},
    {Statistic::mean, "mean"},
    {Statistic::cv, "CV"},
    {Statistic::other_median, "median {unit}"},
    {Statistic::ratio_to_first, "ratio to {to}"},
    {Statistic::ratio_of_variants, "ratio {of}/{to}"},
}};

std::string statistic_text(const Figure& f) {
  return fmt::format(fmt::runtime(model::word_of(f.statistic, kStatistics, "")), fmt::arg("unit", f.unit),
                     fmt::arg("of", f.of), fmt::arg("to", f.to));
}

// A figure by its place and statistic: "contended · BenchmarkLoop · ratio thrice/once".
std::string figure_name(const Figure& f) {
  return fmt::format("{} · {} · {}", f.condition, f.benchmark, statistic_text(f));
}

// What each doubt says, in the order of analysis::Doubt.
constexpr std::string_view kDoubts[] = {
    "a bare number, which may mean something else",
    "an unsigned percentage: a change, or a CV",
    "a percentage under 100%: a share, or a CV",
    "one significant digit",
    "2 significant digits and no name of the figure nearby",
    "it matches {} figures ({})",
    "in code, not in a comment",
};
static_assert(std::size(kDoubts) == static_cast<std::size_t>(Doubt::in_code) + 1, "a sentence per Doubt");

// What makes a quotation less than certain, in words ("" when it is certain).
std::string why_text(const analysis::Hit& h, const std::vector<analysis::Correction>& corrections) {
  std::vector<std::string> out;
  for (const Doubt d : h.doubts) {
    const std::string_view said = kDoubts[static_cast<std::size_t>(d)];
    if (d != Doubt::several_figures) {
      out.emplace_back(said);
      continue;
    }
    std::vector<std::string> names;
    for (const std::size_t k : h.also) names.push_back(figure_name(corrections[k].old_figure));
    out.push_back(fmt::format(fmt::runtime(said), h.also.size(), fmt::join(names, "; ")));
  }
  return fmt::format("{}", fmt::join(out, "; "));
}

// A comparison's verdict as the errata say it: "slower", "faster (untrustworthy: A/A failed)"; ""
// for a figure that is no comparison.
std::string verdict_text(const Figure& f) {
  if (!f.verdict) return "";
  return std::string(to_string(*f.verdict)) + (f.untrustworthy ? " (untrustworthy: A/A failed)" : "");
}

std::string with_ci(const Figure& f) {
  std::string out = figure_value(f);
  if (f.lo && f.hi) {
    const Figure lo = [&] {
      Figure g = f;
      g.value = *f.lo;
      return g;
    }();
    Figure hi = f;
    hi.value = *f.hi;
    out += " " + text::interval(figure_value(lo), figure_value(hi));
  }
  return out;
}

std::string labelled(const Figure& f) {
  std::string out = with_ci(f);
  out += " ";
  out += to_string(f.label);
  return out;
}

// What a label says about how the figure was measured, for the erratum's "why".
std::string label_meaning(analysis::Label l) {
  using analysis::Label;
  if (l == Label::measured_clean) return "measured on a quiet host";
  if (l == Label::contended)
    return "measured under load with baseline and variant at different times (unpaired)";
  if (l == Label::contended_paired)
    return "measured under load with each variant back to back with its baseline in every repeat (paired)";
  return "nothing was recorded about how clean the room was";
}

std::size_t count(const ErrataView& v, Certainty c) {
  std::size_t n = 0;
  for (const auto& f : v.files)
    for (const auto& h : f.hits) n += h.certainty == c;
  return n;
}

// The corrections some file quotes, in the corrections' order.
std::vector<std::size_t> quoted_corrections(const ErrataView& v) {
  std::set<std::size_t> seen;
  for (const auto& f : v.files)
    for (const auto& h : f.hits) seen.insert(h.correction);
  return {seen.begin(), seen.end()};
}

std::size_t quotations(const ErrataView& v) {
  std::size_t n = 0;
  for (const auto& f : v.files) n += f.hits.size();
  return n;
}

std::string headline(const ErrataView& v) {
  const std::size_t hits = quotations(v);
  const std::size_t figures = quoted_corrections(v).size();
  return fmt::format(
      "{} quotation{} of {} superseded figure{} in {} of {} file{} searched ({} certain, {} likely)", hits,
      hits == 1 ? "" : "s", figures, figures == 1 ? "" : "s", v.files.size(), v.searched,
      v.searched == 1 ? "" : "s", count(v, Certainty::certain), count(v, Certainty::likely));
}

std::string sides(const ErrataView& v) {
  return fmt::format("old: {} ({})\nnew: {} ({})\n", fmt::join(v.old_sources, " + "), v.old_title,
                     fmt::join(v.new_sources, " + "), v.new_title);
}

}  // namespace

std::string figure_value(const Figure& f) {
  switch (f.kind) {
    case FigureKind::ratio:
      return fmt::format("{:.4f}×", f.value);
    case FigureKind::percent:
      return fmt::format("{:.2f}%", f.value);
    case FigureKind::halfwidth:
      return fmt::format("±{:.2f}%", f.value);
    case FigureKind::value:
      return text::format_value(f.value) + " " + f.unit;
  }
  return "";
}

std::string errata_text(const ErrataView& v, std::size_t width) {
  std::string out = "noisefloor errata: " + headline(v) + "\n" + sides(v);
  for (const auto& n : v.notes) out += "note: " + n + "\n";
  for (const auto& d : v.room_differences) out += "rooms differ: " + d + "\n";
  for (const auto& f : v.files) {
    out += "\n";
    for (const auto& h : f.hits) {
      const auto& c = v.corrections[h.correction];
      const std::string why = why_text(h, v.corrections);
      out += fmt::format("{}:{}:{}  {}  {}{}\n", f.path, h.line, h.column, h.quoted,
                         h.certainty == Certainty::certain ? "certain" : "likely",
                         why.empty() ? "" : " (" + why + ")");
      out += text::wrap(fmt::format("{}: was {}, is {}; write {}", figure_name(c.old_figure),
                                    labelled(c.old_figure), labelled(c.new_figure), h.replacement),
                        width, "    ", "      ");
    }
    if (f.changed)
      out += fmt::format("  {}: corrected in place ({} syntax)\n", f.path, model::name_of(f.syntax));
    if (!f.left_as_is.empty()) out += fmt::format("  {}: left as it is: {}\n", f.path, f.left_as_is);
  }
  if (v.binary > 0) out += fmt::format("\n{} binary file{} skipped\n", v.binary, v.binary == 1 ? "" : "s");
  if (v.links > 0)
    out += fmt::format(
        "{} symbolic link{} left alone (never followed: correct what it points at in its own "
        "repository)\n",
        v.links, v.links == 1 ? "" : "s");
  if (v.too_large > 0)
    out += fmt::format("{} file{} over {} MiB skipped\n", v.too_large, v.too_large == 1 ? "" : "s",
                       ErrataView::kErrataFileLimit >> 20);
  const std::size_t certain = count(v, Certainty::certain), likely = count(v, Certainty::likely);
  std::string end;
  if (v.files.empty())
    end = "no quotation of a superseded figure found";
  else if (v.applied)
    end = fmt::format(
        "applied: {} certain quotation{} corrected in place, each with a visible mark; {} likely one{} "
        "left for you to check",
        certain, certain == 1 ? "" : "s", likely, likely == 1 ? "" : "s");
  else
    end = fmt::format(
        "dry run: nothing was changed. --apply rewrites the {} certain quotation{} in place, each with a "
        "visible "
        "correction mark{}; --format markdown prints the erratum",
        certain, certain == 1 ? "" : "s",
        likely == 0
            ? ""
            : fmt::format(", and leaves the {} likely one{} for you", likely, likely == 1 ? "" : "s"));
  return out + "\n" + text::wrap(end, width, "", "  ");
}

std::string errata_markdown(const ErrataView& v) {
  std::string out = fmt::format("## Erratum: {} superseded by {} ({})\n\n", v.old_title, v.new_title, v.date);
  const std::vector<std::size_t> quoted = quoted_corrections(v);
  const std::size_t places = quotations(v);
  out += fmt::format(
      "**What was wrong.** {} figure{} published from `{}` {} superseded by `{}`, and {} quoted in {} "
      "place{}.\n\n",
      quoted.size(), quoted.size() == 1 ? "" : "s", fmt::join(v.old_sources, "` + `"),
      quoted.size() == 1 ? "is" : "are", fmt::join(v.new_sources, "` + `"),
      quoted.size() == 1 ? "it is" : "they are", places, places == 1 ? "" : "s");
  // Why: the labels that changed, and the rooms.
  std::set<std::pair<analysis::Label, analysis::Label>> changes;
  for (const std::size_t k : quoted) {
    const auto& c = v.corrections[k];
    if (c.old_figure.label != c.new_figure.label) changes.insert({c.old_figure.label, c.new_figure.label});
  }
  std::vector<std::string> why;
  for (const auto& [was, is] : changes)
    why.push_back(fmt::format("the old figures are **{}** ({}); the new ones are **{}** ({})", to_string(was),
                              label_meaning(was), to_string(is), label_meaning(is)));
  if (!v.room_differences.empty())
    why.push_back(fmt::format("the rooms differ: {}", fmt::join(v.room_differences, "; ")));
  if (why.empty()) why.push_back("the same label and room on both sides: the new run measured again");
  std::string because = fmt::format("{}", fmt::join(why, "; "));
  if (!because.empty()) because[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(because[0])));
  out += fmt::format("**Why.** {}.\n\n", because);
  out +=
      "### The correct figures\n\n| condition | benchmark | statistic | was | is (95% CI) | verdict "
      "|\n|:--|:--|:--|--:|--:|:--|\n";
  for (const std::size_t k : quoted) {
    const auto& c = v.corrections[k];
    out += fmt::format("| {} | {} | {} | {} {} | {} {} | {} |\n", text::markdown_cell(c.old_figure.condition),
                       text::markdown_cell(c.old_figure.benchmark),
                       text::markdown_cell(statistic_text(c.old_figure)), with_ci(c.old_figure),
                       to_string(c.old_figure.label), with_ci(c.new_figure), to_string(c.new_figure.label),
                       text::markdown_cell(verdict_text(c.new_figure)));
  }
  out +=
      "\n### Where the old figures were quoted\n\n| place | quoted | figure | correct to | certainty "
      "|\n|:--|:--|:--|:--|:--|\n";
  for (const auto& f : v.files)
    for (const auto& h : f.hits) {
      const std::string why = why_text(h, v.corrections);
      out += fmt::format(
          "| `{}:{}:{}` | {} | {} | {} | {}{} |\n", f.path, h.line, h.column, text::markdown_cell(h.quoted),
          text::markdown_cell(figure_name(v.corrections[h.correction].old_figure)),
          text::markdown_cell(h.replacement), h.certainty == Certainty::certain ? "certain" : "likely",
          why.empty() ? "" : ": " + text::markdown_cell(why));
    }
  out += fmt::format(
      "\n{}: `noisefloor errata --old {} --new {}{}{}`.\n", v.applied ? "Corrected with" : "Found with",
      fmt::join(v.old_sources, " "), fmt::join(v.new_sources, " "),
      v.in.empty() ? "" : fmt::format(" --in {}", fmt::join(v.in, " ")), v.applied ? " --apply" : "");
  return out;
}

std::string errata_json(const ErrataView& v) {
  using nlohmann::json;
  const auto figure = [](const Figure& f) {
    json j = {{"value", f.value}, {"label", to_string(f.label)}};
    j["lo"] = f.lo ? json(*f.lo) : json(nullptr);
    j["hi"] = f.hi ? json(*f.hi) : json(nullptr);
    if (f.verdict) j["verdict"] = verdict_text(f);
    return j;
  };
  json figures = json::array();
  for (const auto& c : v.corrections)
    figures.push_back({{"figure", figure_name(c.old_figure)},
                       {"condition", c.old_figure.condition},
                       {"benchmark", c.old_figure.benchmark},
                       {"statistic", statistic_text(c.old_figure)},
                       {"unit", c.old_figure.unit},
                       {"old", figure(c.old_figure)},
                       {"new", figure(c.new_figure)}});
  json quotations = json::array();
  for (const auto& f : v.files)
    for (const auto& h : f.hits)
      quotations.push_back({{"file", f.path},
                            {"line", h.line},
                            {"column", h.column},
                            {"syntax", std::string(model::name_of(f.syntax))},
                            {"quoted", h.quoted},
                            {"figure", figure_name(v.corrections[h.correction].old_figure)},
                            {"certainty", h.certainty == Certainty::certain ? "certain" : "likely"},
                            {"why", why_text(h, v.corrections)},
                            {"replacement", h.replacement},
                            {"corrected", f.changed && h.certainty == Certainty::certain}});
  json files_left = json::array();
  for (const auto& f : v.files)
    if (!f.left_as_is.empty()) files_left.push_back({{"file", f.path}, {"why", f.left_as_is}});
  const json doc = {{"old", {{"sources", v.old_sources}, {"experiment", v.old_title}}},
                    {"new", {{"sources", v.new_sources}, {"experiment", v.new_title}}},
                    {"date", v.date},
                    {"applied", v.applied},
                    {"searched", v.searched},
                    {"binary_skipped", v.binary},
                    {"links_skipped", v.links},
                    {"too_large_skipped", v.too_large},
                    {"room_differences", v.room_differences},
                    {"notes", v.notes},
                    {"figures", figures},
                    {"quotations", quotations},
                    {"left_as_is", files_left}};
  return doc.dump(2) + "\n";
}

}  // namespace noisefloor::render
