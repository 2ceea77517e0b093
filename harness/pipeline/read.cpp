// The commands that read results: `cv`, `compare`, `report` and `check`. Load → analyze → render
// (`errata`, which reads them too, is errata.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <optional>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "analysis/rooms.hpp"
#include "claims/claim.hpp"
#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "fingerprint/facts.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "model/version.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/loading.hpp"
#include "pipeline/room.hpp"
#include "process/process.hpp"
#include "render/compare.hpp"
#include "render/export.hpp"
#include "render/fleet.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/judge.hpp"
#include "render/run.hpp"
#include "render/sweep_plot.hpp"
#include "render/sweep_table.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "results/load.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;
namespace {

// A run that a later one recorded as superseding it (run --supersedes): every reader says so
// first, with what replaced it and how to find where its figures were quoted.
void find_superseders(records::Result& r) {
  std::error_code ec;
  if (r.go_test_file || !fs::is_directory(r.source, ec)) return;
  r.superseded_by = results::superseders(r.source);
}

}  // namespace

Loaded load_all(const std::vector<std::string>& paths) {
  Loaded out;
  for (const auto& p : paths) {
    if (auto fleet = results::load_fleet(p)) {
      if (fleet->hosts.empty()) {
        std::vector<std::string> missing;
        for (const auto& h : fleet->missing) missing.push_back(render::missing_host_text(h));
        throw InputError(fmt::format("{}: a run on several hosts where no host measured anything ({})", p,
                                     fmt::join(missing, "; ")));
      }
      out.results.insert(out.results.end(), fleet->hosts.begin(), fleet->hosts.end());
      out.fleets.push_back(std::move(*fleet));
    } else {
      out.results.push_back(results::load(p));
      find_superseders(out.results.back());
    }
  }
  return out;
}

namespace {

// A warning line per host of the runs on several hosts that left no results.
std::string missing_hosts(const Loaded& loaded) {
  std::string out;
  for (const auto& f : loaded.fleets)
    for (const auto& m : f.missing) out += fmt::format("warning: host {}\n", render::missing_host_text(m));
  return out;
}

// The hosts of the fleets read, side by side, and how they differ ("" without fleets).
std::string fleet_view(const Loaded& loaded, bool terminal) {
  std::string out;
  for (const auto& fleet : loaded.fleets)
    out += fmt::format("{} · run {} on {} host(s)\n{}\n", fleet.record.experiment, fleet.record.run_id,
                       fleet.record.hosts.size(), side_by_side_text(columns_of(fleet), terminal));
  return out;
}

// Results from different rooms, one rule for cv, report, check and compare: the fields that move
// benchmarks and differ are listed once, on stderr; without --allow-different-hosts the command
// stops there (exit 2), with it the block heads the output as a warning.
std::string rooms_block(const std::vector<std::string>& pairs, bool allowed) {
  if (pairs.empty()) return "";
  return (allowed ? "warning: different rooms, used together because of --allow-different-hosts:\n"
                  : "NOT COMPARABLE: fields that move benchmarks differ:\n") +
         fmt::format("{}", fmt::join(pairs, ""));
}

}  // namespace

// Merged results: per later source, how it differs from the first.
std::string rooms_verdict(const analysis::Analysis& a, bool allowed) {
  std::vector<std::string> pairs;
  for (std::size_t k = 1; k < a.sources.size(); ++k) {
    std::string moved;
    for (std::size_t i = 0; i < a.differences.size(); ++i)
      if (a.difference_source[i] == k && a.differences[i].moves_benchmarks)
        moved +=
            fmt::format("  {}: {} vs {}\n", a.differences[i].field, a.differences[i].a, a.differences[i].b);
    if (!moved.empty())
      pairs.push_back(fmt::format("{} vs {}:\n{}", a.sources.front().source, a.sources[k].source, moved));
  }
  return rooms_block(pairs, allowed);
}

namespace {

// compare's two sides (a host's, of runs on several hosts): the fields that move benchmarks and
// differ, old → new, in the same block.
std::string compare_rooms_verdict(const analysis::CompareTable& t, const std::string& host, bool allowed) {
  std::string moved;
  for (const auto& d : t.differences)
    if (d.moves_benchmarks) moved += fmt::format("  {}: {} → {}\n", d.field, d.a, d.b);
  if (moved.empty()) return "";
  return rooms_block({fmt::format("{}old → new:\n{}", host.empty() ? "" : "host " + host + ", ", moved)},
                     allowed);
}

// The refusal: the block above, then one line that says what to do.
Output not_comparable(const std::string& block, std::string_view command) {
  Output out;
  out.err = block;
  out.status = 2;
  out.failure = fmt::format(
      "{}: the results come from different rooms (the fields above): their numbers are not "
      "comparable; pass --allow-different-hosts to {} them anyway",
      command, command == "compare" ? "compare" : "use");
  return out;
}

// A result whose run did not complete: said before its table, with what is there and what is
// not, and how to finish it ("" for a complete run or a go test file).
std::string unfinished(const records::Result& r) {
  std::error_code ec;
  if (!fs::is_directory(r.source, ec)) return "";
  if (r.run && r.run->status == records::RunStatus::complete) return "";
  // How many samples each condition was to keep: the experiment's copy says (a fixed count, no
  // variants); otherwise only what is there is said.
  std::optional<int> target;
  try {
    if (const auto text = files::try_read_regular(fs::path(r.source) / "experiment.yaml", 1 << 20, true)) {
      const model::Experiment e = config::parse_experiment(*text, "experiment.yaml", {});
      if (!e.adaptive && !e.paired()) target = e.benchmark.samples;
    }
  } catch (const Error&) {
  }
  std::map<std::string, std::map<std::string, std::size_t>> kept;  // condition → benchmark → kept
  for (const records::SampleRef s : r.samples)
    if (!s.warmup) ++kept[s.condition][s.name];
  std::vector<std::string> measured, missing;
  for (const auto& c : r.conditions) {
    const auto it = kept.find(c);
    if (it == kept.end()) {
      missing.push_back(c);
      continue;
    }
    std::size_t least = SIZE_MAX;
    for (const auto& [name, n] : it->second) least = std::min(least, n);
    measured.push_back(target ? fmt::format("{} {} of {}{}", c, least, *target,
                                            static_cast<int>(least) < *target ? " (short)" : "")
                              : fmt::format("{} {}", c, least));
  }
  std::string how = "no run.json: it was killed, or is still running";
  if (r.run) {
    how = std::string(records::to_string(r.run->status));
    if (r.run->error && *r.run->error != how) how += ": " + *r.run->error;
  }
  // The command that finishes it names the experiment the run recorded (resuming runs nothing
  // the user did not name).
  std::string experiment = r.run ? r.run->experiment_file : "";
  if (experiment.empty() && r.fingerprint.run) experiment = r.fingerprint.run->experiment_file;
  const std::string source = text::name_safe(r.source);  // a directory's name is the tree's author's
  return fmt::format(
      "warning: {}: this run did not complete ({}); samples kept per condition: {}{}; "
      "`noisefloor run {} --resume {}` measures the rest\n",
      source, how, measured.empty() ? "none" : fmt::format("{}", fmt::join(measured, ", ")),
      missing.empty() ? "" : fmt::format("; not measured: {}", fmt::join(missing, ", ")),
      experiment.empty() ? "EXPERIMENT" : text::shell_word(experiment), text::shell_word(source));
}

std::vector<std::string> host_names(const results::Fleet& fleet) {
  std::vector<std::string> names;
  for (const auto& r : fleet.hosts) names.push_back(r.label);
  return names;
}

// Appends a rendered part, moved in where nothing came before it: a table of 10^5 rows is tens of
// megabytes, and its copy, then the copy's growth at the next part, held three times that at once.
void add_part(std::string& to, std::string&& part) {
  if (to.empty()) {
    to = std::move(part);
  } else {
    to += part;
  }
}

std::string generated_by() { return fmt::format("noisefloor {} ({})", kVersion, kCommit); }

}  // namespace

void require_format(model::PrintFormat format, std::span<const model::PrintFormat> accepted) {
  if (std::find(accepted.begin(), accepted.end(), format) == accepted.end())
    throw ConfigError("--format: " + model::format_problem(model::name_of(format), accepted));
}

namespace {
// What cv shows after the table: sweeps, the diagnosis, a gate's verdicts, the claims.
std::string after_table(const analysis::Analysis& a, bool as_text, std::size_t width) {
  std::string after = render::sweep_tables(a.curves, as_text, width);
  after += render::diagnosis_text(a.diagnosis, as_text, width);
  // A gate run (run --base): its verdicts, as the run printed them, after the sides' table.
  if (a.gate && a.gate_sides && a.sources.size() == 1) {
    const render::GateContext ctx = gate_context(a);
    after += "\n" + (as_text ? render::gate_text(*a.gate, ctx, static_cast<int>(width))
                             : render::gate_markdown(*a.gate, ctx));
  }
  if (a.judgement) {
    const std::string unit = a.table.rows.empty() ? "" : a.table.rows.front().unit;
    after +=
        as_text ? render::judgement_text(*a.judgement, unit) : render::judgement_markdown(*a.judgement, unit);
  }
  return after;
}
}  // namespace

Output cv(const CvOptions& o) {
  require_format(o.format, kCvFormats);
  if (o.paths.empty()) throw ConfigError("cv: give a results directory or go test -bench output files");
  Loaded loaded = load_all(o.paths);
  std::string incomplete;
  for (const auto& r : loaded.results) incomplete += unfinished(r);
  // The hosts of a run on several are different rooms by design, and kept apart.
  analysis::Analysis a =
      analysis::analyze(std::move(loaded.results), o.allow_different_hosts || !loaded.fleets.empty());
  // Only the JSON document reads the samples themselves (the others read the table and the
  // diagnosis, made by now): they are let go before the table is rendered.
  if (o.format != model::PrintFormat::json) a.samples = records::Samples();
  Output out;
  out.err += incomplete;
  for (const auto& s : a.sources) {
    for (const auto& by : s.superseded_by)
      out.err += fmt::format("warning: {}\n", render::superseded_text(s, by));
    for (const auto& w : s.warnings) out.err += fmt::format("warning: {}\n", render::run_warning_text(w));
  }
  out.err += missing_hosts(loaded);
  const std::string verdict = loaded.fleets.empty() ? rooms_verdict(a, o.allow_different_hosts) : "";
  if (!verdict.empty() && !o.allow_different_hosts) return not_comparable(verdict, "cv");
  out.err += verdict;
  using model::PrintFormat;
  const bool as_text = o.format == PrintFormat::text;
  if (o.format == PrintFormat::markdown || as_text) {
    // A superseded run says so above its table, where a reader who pastes it sees it.
    for (const auto& s : a.sources)
      for (const auto& by : s.superseded_by)
        out.out += as_text ? text::wrap(render::superseded_text(s, by), o.width, "", "  ") + "\n"
                           : render::superseded_markdown(s, by) + "\n\n";
    out.out += fleet_view(loaded, as_text);
    out.out += render::counters_missing(a.diagnosis, as_text, o.width);
    std::string after = after_table(a, as_text, o.width);
    if (as_text) {
      add_part(out.out, render::table_text(a.table, o.width));
      out.out += after;
    } else {  // streamed: the markdown table of 10^5 benchmarks is tens of MB, never one string
      out.stream = [table = std::make_shared<const analysis::Table>(std::move(a.table)),
                    after = std::move(after)](const std::function<void(std::string_view)>& sink) {
        render::table_markdown(*table, sink);
        sink(after);
      };
    }
  } else if (o.format == PrintFormat::csv) {
    out.out = render::table_csv(a.table);
  } else if (o.format == PrintFormat::summary) {
    const std::vector<std::string> header =
        a.sources.size() == 1 && a.sources.front().run
            ? a.sources.front().run->summary_header
            : std::vector<std::string>{"# CV comparison — recomputed by noisefloor cv"};
    out.out = render::summary_blocks(a.table, header);
  } else {
    out.out = render::cv_json(a, o.paths);
  }
  return out;
}

// "2%" → 0.02, "0.02" → 0.02; a bare number >= 1 is refused as ambiguous.
double parse_threshold(const std::string& text) {
  const auto bad = [&] {
    return ConfigError(fmt::format(
        "--threshold: expected a percentage such as 2% (or a fraction such as 0.02), got \"{}\"", text));
  };
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  if (number.empty()) throw bad();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(number.c_str(), &end);
  if (errno != 0 || end != number.c_str() + number.size()) throw bad();
  const double fraction = percent ? v / 100 : v;
  if (!(fraction >= 0 && fraction < 1)) throw bad();
  return fraction;
}

namespace {
// A simulated count (valgrind's, §3.17) is not a measurement: one side of each is refused, whatever
// units the two share.
void refuse_simulated_against_measured(const records::Result& old_side, const records::Result& new_side) {
  const bool old_simulated = old_side.fingerprint.toolchain.text("valgrind.settings").has_value();
  const bool new_simulated = new_side.fingerprint.toolchain.text("valgrind.settings").has_value();
  if (old_simulated == new_simulated) return;
  throw ConfigError(fmt::format(
      "compare: {} holds counts simulated by valgrind and {} measured figures: a simulation and a "
      "measurement are not comparable; compare two simulated runs, or two measured ones",
      old_simulated ? old_side.source : new_side.source, old_simulated ? new_side.source : old_side.source));
}
}  // namespace

Output compare(const CompareOptions& o) {
  require_format(o.format, kCompareFormats);
  const double threshold = parse_threshold(o.threshold);
  const auto side = [](const std::string& path, const char* which) {
    if (path.empty())
      throw ConfigError(
          fmt::format("compare: give the {} side (a result directory or a go test file)", which));
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw ConfigError(
          fmt::format("compare: {} side \"{}\": no such file or directory (expected a result "
                      "directory or a go test -bench output file)",
                      which, path));
    return path;
  };
  side(o.old_path, "old");
  side(o.new_path, "new");
  const auto old_fleet = results::load_fleet(o.old_path);
  const auto new_fleet = results::load_fleet(o.new_path);
  // Runs on several hosts: host by host, each against the same host of the other run.
  std::vector<std::pair<std::string, analysis::CompareTable>> tables;
  if (old_fleet || new_fleet) {
    if (!old_fleet || !new_fleet)
      throw ConfigError(
          fmt::format("compare: {} is a run on several hosts and {} is not: give one host's directory "
                      "(<run>/hosts/<host>) for the first, or two runs on several hosts",
                      old_fleet ? o.old_path : o.new_path, old_fleet ? o.new_path : o.old_path));
    for (const auto& a : old_fleet->hosts)
      for (const auto& b : new_fleet->hosts)
        if (a.label == b.label)
          tables.emplace_back(a.label, analysis::compare_results(a, b, threshold, o.allow_different_hosts,
                                                                 o.allow_different_labels));
    if (tables.empty())
      throw ConfigError(fmt::format("compare: the two runs have no host in common (old: {}; new: {})",
                                    fmt::join(host_names(*old_fleet), ", "),
                                    fmt::join(host_names(*new_fleet), ", ")));
  } else {
    // The two sides are read at the same time (a million samples each: a quarter of a second
    // apiece); an error from either is the one the user sees, the old side's first.
    auto new_side = std::async(std::launch::async, [&] { return results::load(o.new_path); });
    records::Result old_result;
    std::exception_ptr old_error;
    try {
      old_result = results::load(o.old_path);
    } catch (...) {
      old_error = std::current_exception();
    }
    std::exception_ptr new_error;
    records::Result new_result;
    try {
      new_result = new_side.get();
    } catch (...) {
      new_error = std::current_exception();
    }
    if (old_error) std::rethrow_exception(old_error);
    if (new_error) std::rethrow_exception(new_error);
    refuse_simulated_against_measured(old_result, new_result);
    tables.emplace_back("", analysis::compare_results(std::move(old_result), std::move(new_result), threshold,
                                                      o.allow_different_hosts, o.allow_different_labels));
  }
  if (o.format == model::PrintFormat::csv && !tables.front().first.empty())
    throw ConfigError(
        "compare --format csv: one table per host does not fit one CSV: use --format json, or compare "
        "one host's directories (<run>/hosts/<host>)");
  Output out;
  for (const auto& [host, table] : tables)
    out.err += compare_rooms_verdict(table, host, o.allow_different_hosts);
  if (!out.err.empty() && !o.allow_different_hosts) return not_comparable(out.err, "compare");
  // Rows whose sides carry different labels: refused as rooms are, the differences said once.
  std::string labels;
  for (const auto& [host, table] : tables)
    for (const auto& d : render::label_differences(table))
      labels += fmt::format("  {}{}\n", host.empty() ? "" : "host " + host + ": ", d);
  if (!labels.empty()) {
    Output refused;
    refused.err =
        out.err + "NOT COMPARABLE: the sides were measured in rooms of different cleanliness:\n" + labels;
    refused.status = 2;
    refused.failure =
        "compare: numbers measured under different labels are not comparable; pass "
        "--allow-different-labels to compare them anyway";
    return refused;
  }
  if (o.format == model::PrintFormat::json) {
    out.out = render::compare_json(tables);
    return out;
  }
  for (const auto& [host, table] : tables) {
    const std::string heading = host.empty() ? "" : fmt::format("== host {} ==\n", host);
    out.out += o.format == model::PrintFormat::text ? heading + render::compare_text(table)
                                                    : render::compare_csv(table);
  }
  return out;
}

namespace {

// A PNG is the SVG converted by the first converter found in PATH (started with argv, no shell).
struct Converter {
  std::string program;  // as found in PATH
  std::string name;
};

Converter png_converter() {
  constexpr std::array kConverters{"rsvg-convert", "inkscape", "chromium", "chromium-browser"};
  for (const char* name : kConverters) {
    try {
      return Converter{process::resolve_program(name), name};
    } catch (const RunError&) {
    }
  }
  throw RunError(
      "report --format png: no SVG converter found in PATH (looked for rsvg-convert, inkscape, "
      "chromium, chromium-browser): install librsvg2-bin (rsvg-convert) or use --format svg");
}

// The converter's command line that turns `svg` (holding `figure`) into `png`.
std::vector<std::string> convert_argv(const Converter& converter, const fs::path& svg, const fs::path& png,
                                      const render::SweepFigure& figure, const fs::path& profile) {
  if (converter.name == "rsvg-convert")
    return {converter.program, "--format=png", "--output", png.string(), svg.string()};
  if (converter.name == "inkscape")
    return {converter.program, "--export-type=png", "--export-filename=" + png.string(), svg.string()};
  // Headless Chromium screenshots the window: as large as the figure.
  std::string url = "file://";  // the path percent-encoded: a '#' or a space stays in the path
  for (const char c : svg.string()) {
    const bool plain = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
                       std::string_view("/-._~").find(c) != std::string_view::npos;
    url += plain ? std::string(1, c) : fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  return {converter.program,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--hide-scrollbars",
          "--user-data-dir=" + profile.string(),  // a profile of its own: the user's is left alone
          "--screenshot=" + png.string(),
          fmt::format("--window-size={:.0f},{:.0f}", figure.width, figure.height),
          url};
}

// report --format svg|png: the sweeps' figures alone, one file per sweep group in `directory`
// (sweep-<group>.svg or .png), their paths printed.
Output sweep_figures(const analysis::Analysis& a, model::PrintFormat kind, const fs::path& directory,
                     Output out) {
  const std::string_view format = model::name_of(kind);
  if (a.curves.empty())
    throw ConfigError(fmt::format(
        "report --format {}: this result has no sweep: none of its conditions is a sweep's point; add "
        "{{sweep: [...]}} to a condition (e.g. spinners: {{sweep: [0, 1, 2]}}) and run it again",
        format));
  std::optional<Converter> converter;
  if (kind == model::PrintFormat::png) converter = png_converter();
  std::string hosts;
  for (const auto& source : a.sources) {
    const std::string line = source.fingerprint.host_line();
    if (!line.empty() && hosts.find(line) == std::string::npos) hosts += (hosts.empty() ? "" : "; ") + line;
  }
  for (const auto& group : render::sweep_groups(a.curves)) {
    const render::SweepFigure figure =
        render::sweep_figure(a.curves, group, {.host = hosts, .standalone = true, .id = "sweep"});
    const fs::path svg = fs::absolute(directory / render::sweep_file_name(group, "svg"));
    files::write_atomic(svg, figure.svg);
    if (!converter) {
      out.out += svg.string() + "\n";
      continue;
    }
    const fs::path png = fs::absolute(directory / render::sweep_file_name(group, "png"));
    std::error_code ignored;
    fs::remove(png, ignored);
    // The converter's profile, settings and caches (Chromium's crash reports, Inkscape's
    // preferences) go to a directory of its own, removed after: the user's home is left alone.
    const files::TempDirectory home("nf-convert", "the SVG converter's home");
    process::Spec spec;
    spec.argv = convert_argv(*converter, svg, png, figure, home.path() / "profile");
    spec.env = {{"HOME", home.path().string()},
                {"XDG_CONFIG_HOME", (home.path() / "config").string()},
                {"XDG_CACHE_HOME", (home.path() / "cache").string()}};
    spec.timeout = std::chrono::seconds(120);
    const process::Result done = process::run(spec, nullptr, nullptr);
    if (done.timed_out || done.exit_code != 0 || !fs::exists(png))
      throw RunError(fmt::format("report --format png: {} could not convert {} (exit {}){}", converter->name,
                                 svg.string(), done.exit_code,
                                 text::last_lines(done.err.empty() ? done.out : done.err, 5, "its output")));
    out.out += png.string() + "\n";
  }
  return out;
}

}  // namespace

Output report(const ReportOptions& o) {
  if (o.format) require_format(*o.format, kReportFormats);
  if (o.paths.empty()) throw ConfigError("report: give one or more result directories");
  Loaded loaded = load_all(o.paths);
  std::string incomplete;
  for (const auto& r : loaded.results) incomplete += unfinished(r);
  if (o.redact)
    for (auto& r : loaded.results) {
      constexpr const char* kLeftOut = "(left out: report --redact)";
      for (auto* env : {&r.fingerprint.env, &r.fingerprint.benchmark_env})
        if (*env)
          for (auto& [name, value] : **env) value = kLeftOut;
      auto& host = r.fingerprint.host.document();
      if (host.is_object() && host.contains("kernel") && host["kernel"].is_object() &&
          host["kernel"].contains("cmdline"))
        host["kernel"]["cmdline"] = fingerprint::known(kLeftOut);
    }
  analysis::Analysis a =
      analysis::analyze(std::move(loaded.results), o.allow_different_hosts || !loaded.fleets.empty());
  // Only the page and the gotest export read the samples themselves; the other exports read the
  // table, so a million samples are let go before the document is built.
  if (o.html.empty() && o.format && *o.format != model::PrintFormat::gotest) a.samples = records::Samples();
  Output out;
  out.err += incomplete;
  if (loaded.fleets.empty()) {
    const std::string verdict = rooms_verdict(a, o.allow_different_hosts);
    if (!verdict.empty() && !o.allow_different_hosts) return not_comparable(verdict, "report");
    out.err += verdict;
  }
  for (const auto& w : render::warning_texts(a)) out.err += fmt::format("warning: {}\n", w);
  out.err += missing_hosts(loaded);
  // The Hosts facet of the (first) run on several hosts.
  std::optional<FleetColumns> hosts;
  if (!loaded.fleets.empty()) hosts = columns_of(loaded.fleets.front());
  const auto page = [&] {
    return hosts ? render::html(a, generated_by(), hosts->columns) : render::html(a, generated_by());
  };
  if (!o.html.empty()) files::write_atomic(o.html, page());
  // Next to the (first) result: in its directory (an experiment directory's latest), or beside a
  // go test file.
  const auto beside_result = [&o] {
    const fs::path first = o.paths.front();
    return fs::is_regular_file(first) ? first.parent_path() : results::resolve(first);
  };
  if (o.format == model::PrintFormat::svg || o.format == model::PrintFormat::png)
    return sweep_figures(a, *o.format, beside_result(), std::move(out));
  if (o.format == model::PrintFormat::json) {  // streamed: its per-sample arrays are never one string
    out.stream = [a = std::make_shared<const analysis::Analysis>(std::move(a))](
                     const render::JsonSink& sink) { render::write_summary_json(*a, sink); };
  } else if (o.format) {
    out.out = render::export_as(a, *o.format);
  }
  if (o.html.empty() && !o.format) {
    const fs::path target = beside_result() / "report.html";
    files::write_atomic(target, page());
    out.out = target.string() + "\n";
  }
  return out;
}

namespace {

// What `check` sets the claims beside: --reference, else the published table the run replayed.
std::optional<model::PublishedTable> check_reference(const CheckOptions& o, const records::RunRecord* run) {
  if (o.reference.empty()) return run ? run->reference : std::nullopt;
  try {
    model::PublishedTable reference = read_published(o.reference);
    reference.file = o.reference;
    return reference;
  } catch (const Error& err) {
    throw ConfigError(fmt::format("--reference: {}", err.what()));
  }
}

}  // namespace

Output check(const CheckOptions& o) {
  require_format(o.format, kCheckFormats);
  if (o.paths.empty()) throw ConfigError("check: give a result directory or go test -bench output files");
  if (o.seed && *o.seed >= (std::uint64_t{1} << 53))
    throw ConfigError("--seed: expected a whole number below 2^53 (it is recorded in JSON)");
  Loaded loaded = load_all(o.paths);
  if (!loaded.fleets.empty())
    throw ConfigError(
        fmt::format("check: {} is a run on several hosts: check each host's directory "
                    "(<run>/hosts/<host>)",
                    o.paths.front()));
  const analysis::Analysis a = analysis::analyze(std::move(loaded.results), o.allow_different_hosts);
  const std::string rooms = rooms_verdict(a, o.allow_different_hosts);
  if (!rooms.empty() && !o.allow_different_hosts) return not_comparable(rooms, "check");
  const records::RunRecord* run =
      a.sources.size() == 1 && a.sources.front().run ? &*a.sources.front().run : nullptr;
  const std::vector<std::string> claim_texts = !o.claims.empty() ? o.claims
                                               : run             ? run->claims
                                                                 : std::vector<std::string>{};
  if (claim_texts.empty())
    throw ConfigError(
        fmt::format("check: {} records no claims: give one with --claim, e.g. --claim 'cv({}) <= 5%'",
                    o.paths.front(), a.table.conditions.empty() ? "idle" : a.table.conditions.front()));
  const std::uint64_t seed = o.seed.value_or(run ? run->claims_seed : 1);
  for (const std::string& claim : claim_texts) {
    try {
      claims::parse_claim(claim, analysis::names_of(a.table, a.paired));
    } catch (const claims::ClaimError& err) {
      throw ConfigError(fmt::format("{} \"{}\", column {}: {}",
                                    o.claims.empty() ? "recorded claim" : "--claim", claim, err.offset() + 1,
                                    err.what()));
    }
  }
  const analysis::Judgement j =
      analysis::judge(a.table, a.paired, claim_texts, seed, check_reference(o, run));
  Output out;
  out.err += rooms;
  for (const auto& w : render::warning_texts(a)) out.err += fmt::format("warning: {}\n", w);
  const std::string unit = a.table.rows.empty() ? "" : a.table.rows.front().unit;
  if (o.format == model::PrintFormat::json) {
    out.out = render::judgement_json(j);
  } else if (o.format == model::PrintFormat::markdown) {
    // The verdicts are what `check` is asked for: they come first, the table they rest on after.
    out.out = render::judgement_markdown(j, unit) + "\n" + render::table_markdown(a.table);
  } else {
    std::string claims = render::judgement_text(j, unit);
    claims.erase(0, claims.find_first_not_of('\n'));
    out.out = claims + "\n" + render::table_text(a.table, o.width);
  }
  fail_unreproduced(out, {{"", &j}});
  return out;
}

}  // namespace noisefloor::pipeline
