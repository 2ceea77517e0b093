// The A/B gate at git refs (pipeline/gate.hpp): the sides before the run, the verdicts after it.
#include "pipeline/gate.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "files/files.hpp"
#include "fingerprint/host.hpp"
#include "git/cache.hpp"
#include "git/git.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "pipeline/build.hpp"
#include "process/process.hpp"
#include "render/gate.hpp"
#include "render/json.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;
namespace {

constexpr double kGateThreshold = 0.02;  // θ unless --threshold: 1% needs ~11 quads at 1% CV
// θ of a simulated metric unless --threshold: its counts do not move with the room (A/A ±0.0%), so
// a change of 0.1% of the instructions is one; what the known-truth test holds them to (§3.17).
constexpr double kSimulatedGateThreshold = 0.001;
constexpr int kGateFirstQuads = 6;  // samples: auto's first look (12 pairs)
constexpr int kGateMaxQuads = 60;   // samples: auto's cap unless max_samples says
constexpr int kGateLeastQuads = 3;  // 6 pairs: the least at which the signed-rank test reaches 2.5%
// A command's simulated count's least: one quad, two invocations a side, which show whether each
// side's count is one count (then its ratio is exact and decides, §3.13 "exact counts"); a count
// that varies gets no verdict from one quad. A Google Benchmark's count per iteration carries its
// loop's fixed instructions over an N its clock chose (§3.17): it varies in its sixth digit, so it
// keeps the measured least.
constexpr int kSimulatedLeastQuads = 1;

// `path` (absolute) moved from under `from` to the same place under `to`; nullopt when it is not
// under `from`.
std::optional<std::string> reroot(const std::string& path, const fs::path& from, const fs::path& to) {
  if (!fs::path(path).is_absolute()) return std::nullopt;
  std::error_code ec;
  const fs::path rel = fs::weakly_canonical(path, ec).lexically_relative(from);
  if (ec || rel.empty() || *rel.begin() == "..") return std::nullopt;
  std::string moved = (to / rel).lexically_normal().string();
  if (moved.size() > 1 && moved.back() == '/') moved.pop_back();
  return moved;
}

// A program PATH finds by its name (go, make, cargo): a tool that builds and runs the code of the
// directory it runs in (`go test ./...`), so each side's run in its checkout measures that side.
bool installed_tool(const std::string& program) {
  try {
    return process::resolve_program(fs::path(program).filename().string()) == program;
  } catch (const Error&) {
    return false;
  }
}

// The benchmark's workdir, build and command as they are in one side's checkout: every absolute
// path into the repository moved into the checkout. A program outside the repository would be
// the same binary on both sides: refused, unless it is a tool PATH finds (installed_tool).
struct SidePaths {
  std::string workdir;
  std::vector<std::string> build, command;
};

SidePaths side_paths(const model::Experiment& e, const git::Repo& repo, const fs::path& checkout) {
  const fs::path top(repo.top);
  SidePaths p;
  const auto workdir = reroot(*e.benchmark.workdir, top, checkout);
  if (!workdir)
    throw ConfigError(
        fmt::format("{}: the benchmark's workdir {} is outside the git repository {}: the gate "
                    "builds and runs each side in a checkout of that repository",
                    e.source_file, *e.benchmark.workdir, repo.top));
  p.workdir = *workdir;
  const auto moved = [&](std::vector<std::string> argv) {
    for (auto& arg : argv)
      if (auto m = reroot(arg, top, checkout)) arg = *m;
    return argv;
  };
  p.build = moved(e.benchmark.build);
  p.command = moved(e.benchmark.command);
  const std::string& program = e.benchmark.command.front();
  if (program.find('/') != std::string::npos && p.command.front() == program && !installed_tool(program))
    throw ConfigError(
        fmt::format("{}: benchmark.command: {} is outside the git repository {}: base and head "
                    "would run the same binary; build it inside the repository",
                    e.source_file, program, repo.top));
  return p;
}

// What the gate cannot do yet, refused before anything is checked out.
void refuse_unsupported(const model::Experiment& e, const RunOptions& o) {
  if (e.paired())
    throw ConfigError(
        fmt::format("{}:{}:{}: --base: the experiment already names variants; the gate makes "
                    "its own (base and head): remove variants: or run without --base",
                    e.source_file, e.variants.front().mark.line, e.variants.front().mark.column));
  if (!o.resume.empty())
    throw ConfigError("--base: a gate cannot be resumed: run the gate again (its builds are cached)");
}

// samples: N measures N runs of each side (N/2 quads, at least 3; 1 for a command's simulated count) and
// decides once; samples: auto looks at 6, 12, … quads up to max_samples (default 60) and stops once decided
// (§3.13).
model::GateSettings settings_of(const model::Experiment& e, const RunOptions& o) {
  model::GateSettings s;
  s.threshold = o.threshold.value_or(e.benchmark.simulated ? kSimulatedGateThreshold : kGateThreshold);
  if (o.no_confirm) s.confirm = false;
  if (o.confirm) s.confirm = true;
  s.sequential = e.adaptive.has_value();
  if (s.sequential) {
    s.max_repeats =
        e.adaptive->max_samples_set ? std::max(e.adaptive->max_samples, kGateLeastQuads) : kGateMaxQuads;
    s.first_repeats = std::min(kGateFirstQuads, s.max_repeats);
  } else {
    const bool exact_counts = e.benchmark.simulation_scope() == model::SimulationScope::whole_run;
    s.max_repeats = s.first_repeats =
        std::max(exact_counts ? kSimulatedLeastQuads : kGateLeastQuads, (e.benchmark.samples + 1) / 2);
  }
  return s;
}

// --head: the working tree (default), or a ref; --head HEAD with uncommitted changes would
// silently leave them out: refused unless --allow-dirty.
model::GateSide head_side(const git::Repo& repo, const RunOptions& o, RunEvents& events) {
  if (o.head.empty()) {
    model::GateSide s = git::working_tree(repo);
    if (!s.dirty) events.note("gate: the working tree has no uncommitted changes: head is HEAD");
    return s;
  }
  if ((o.head == "HEAD" || o.head == "@") && !o.allow_dirty) {
    const std::vector<std::string> changed = git::uncommitted(repo);
    if (!changed.empty()) {
      std::vector<std::string> shown(changed.begin(),
                                     changed.begin() + std::min<std::size_t>(changed.size(), 3));
      throw ConfigError(
          fmt::format("--head {}: the working tree has uncommitted changes ({}{}) that --head {} "
                      "would not measure: omit --head to measure them, or pass --allow-dirty",
                      o.head, fmt::join(shown, ", "), changed.size() > 3 ? ", ..." : "", o.head));
    }
  }
  return git::resolve(repo, o.head);
}

std::string short_id(const std::string& id) { return id.substr(0, 7); }

std::string side_words(const std::string& role, const model::GateSide& s) {
  if (s.worktree)
    return fmt::format("{} (working tree on {}{})", role, short_id(s.commit), s.dirty ? " + changes" : "");
  if (s.commit.rfind(s.ref, 0) == 0) return fmt::format("{} ({})", role, short_id(s.commit));
  return fmt::format("{} ({} {})", role, s.ref, short_id(s.commit));
}

std::string file_sha256(const std::string& program) {
  std::error_code ec;
  if (program.find('/') == std::string::npos || !fs::is_regular_file(program, ec)) return "";
  return hash::sha256_hex(files::read(program));
}

}  // namespace

// One side checked out (or found) in the cache and built there unless its build is cached; the
// entry stays locked while the gate runs, so `gc` and other gates leave it alone.
model::Variant PreparedGate::build_side(const model::Experiment& e, const git::Repo& repo,
                                        model::GateSide& side, const std::string& role,
                                        const std::string& toolchain, RunEvents& events,
                                        const Cancelled& cancelled) {
  if (git::has_submodules(repo, side.tree))
    throw ConfigError(fmt::format("--{}: {} has git submodules, which the gate does not check out yet", role,
                                  side.worktree ? "the working tree" : side.ref));
  const std::string workdir_rel = fs::path(*e.benchmark.workdir).lexically_relative(repo.top).string();
  side.build_key =
      git::build_key(repo, side.tree, workdir_rel, e.benchmark.build, e.benchmark.env, toolchain);
  git::BuildCache cache(git::default_cache_root());
  git::BuildCache::Entry entry = cache.open(repo, side, side.build_key, cancelled, [&] {
    events.note(
        fmt::format("gate: waiting for another gate that holds the build of {}", side_words(role, side)));
  });
  const SidePaths paths = side_paths(e, repo, entry.dir());
  side.cached = entry.built();
  if (side.cached) {
    events.note(fmt::format("build {}: cached ({})", side_words(role, side), side.build_key.substr(0, 16)));
  } else {
    events.note(fmt::format("build {}: in {}", side_words(role, side), entry.dir().string()));
    model::Experiment at = e;
    at.benchmark.build = paths.build;
    at.benchmark.workdir = paths.workdir;
    build(at, events, cancelled);
  }
  // A tool (go test ./...) is the same file on both sides: its hash says nothing of the build.
  if (!installed_tool(paths.command.front())) side.binary_sha256 = file_sha256(paths.command.front());
  if (!side.cached)
    entry.mark_built({.key = side.build_key,
                      .repo = repo.top,
                      .commit = side.commit,
                      .tree = side.tree,
                      .toolchain = toolchain,
                      .utc = text::utc(std::chrono::system_clock::now()),
                      .build = paths.build,
                      .binary_sha256 = side.binary_sha256});
  entries.push_back(std::move(entry));
  model::Variant v;
  v.name = role;
  v.command = paths.command;
  v.workdir = paths.workdir;
  return v;
}

PreparedGate prepare_gate(model::Experiment& e, const RunOptions& o, RunEvents& events,
                          const Cancelled& cancelled) {
  refuse_unsupported(e, o);
  const git::Repo repo = git::find_repo(*e.benchmark.workdir);
  PreparedGate g;
  g.facts.settings = settings_of(e, o);
  g.facts.base = git::resolve(repo, o.base);
  g.facts.head = head_side(repo, o, events);
  // The compilers on PATH are part of what a build is: a new Go or g++ rebuilds.
  const bool native = e.benchmark.format != model::OutputFormat::gotest;
  const std::string toolchain =
      fingerprint::probe_toolchain(std::nullopt, std::nullopt, native).document().dump();
  model::Variant base = g.build_side(e, repo, g.facts.base, "base", toolchain, events, cancelled);
  model::Variant head = g.build_side(e, repo, g.facts.head, "head", toolchain, events, cancelled);
  if (!g.facts.base.binary_sha256.empty() && g.facts.base.binary_sha256 == g.facts.head.binary_sha256)
    events.note(
        "gate: base and head built the same binary (equal SHA-256): any difference measured is noise");
  e.variants = {std::move(base), std::move(head)};
  e.comparison.baseline = "base";
  e.comparison.aa = true;
  e.comparison.threshold = g.facts.settings.threshold;
  e.gate = g.facts.settings;
  // The room, measured by the floors in the same run: no separate profile unless the file asks; no
  // settle when no condition puts anything in force (the quads' order cancels a drift, §3.13).
  if (!e.noise_profile_set) e.noise_profile = model::Seconds(0);
  const bool adds_nothing = std::all_of(
      e.conditions.begin(), e.conditions.end(),
      [](const model::Condition& c) { return !(c.spinners && c.spinners->count > 0) && !c.container; });
  if (!e.settle_set && adds_nothing) e.settle = model::Seconds(0);
  e.adaptive = model::Adaptive{.precision = g.facts.settings.threshold,
                               .min_samples = g.facts.settings.first_repeats,
                               .max_samples = g.facts.settings.max_repeats,
                               .budget = e.adaptive ? e.adaptive->budget : model::Seconds(3600)};
  return g;
}

plan::Scheduler::Flagged gate_confirmation(const model::Experiment& e) {
  std::vector<std::string> contended;
  for (const auto& c : e.conditions)
    if (c.spinners && c.spinners->count > 0) contended.push_back(c.name);
  return [&e, contended](std::span<const records::Sample> measured) {
    const records::Samples samples(std::vector<records::Sample>(measured.begin(), measured.end()));
    return analysis::to_confirm(analysis::build_gate(samples, *e.gate, {}, contended));
  };
}

namespace {

// Appends to $GITHUB_STEP_SUMMARY; a problem is a warning, never a failed gate.
std::string append_summary(const std::string& path, const std::string& markdown) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("warning: GITHUB_STEP_SUMMARY {}: {}\n", path, std::strerror(errno));
  std::string problem;
  try {
    files::write_all(fd, render::step_summary(markdown), path);
  } catch (const Error& err) {
    problem = fmt::format("warning: GITHUB_STEP_SUMMARY: {}\n", err.what());
  }
  ::close(fd);
  return problem;
}

// The one command that runs this gate again: its sides as commits (unless the file names them),
// and the options that change what it measures or decides.
std::string reproduce_command(const RunOptions& o, const model::GateSide& base, const model::GateSide& head,
                              bool sides_in_file) {
  std::string line = "noisefloor run " + text::shell_word(o.experiment);
  if (!sides_in_file) {
    line += " --base " + short_id(base.commit);
    if (!head.worktree) line += " --head " + short_id(head.commit);
  }
  for (const auto& h : o.hosts) line += " --host " + text::shell_word(h);
  if (o.threshold) line += fmt::format(" --threshold {:g}%", 100 * *o.threshold);
  if (o.no_confirm) line += " --no-confirm";
  if (o.confirm) line += " --confirm";
  return line;
}

}  // namespace

render::GateContext gate_context(const analysis::Analysis& a) {
  render::GateContext ctx;
  if (!a.gate || !a.gate_sides) return ctx;
  ctx.base = a.gate_sides->base;
  ctx.head = a.gate_sides->head;
  if (!a.sources.empty()) {
    const records::Fingerprint& fp = a.sources.front().fingerprint;
    if (fp.doctor) ctx.doctor = fp.doctor->grade;
    ctx.host = fp.host_line();
  }
  return ctx;
}

void conclude_gate(Output& out, const analysis::Analysis& a, const model::Experiment& e, const RunOptions& o,
                   bool sides_in_file, results::RunDirectory& dir, double seconds) {
  if (!a.gate || !a.gate_sides) return;
  const analysis::GateTable& t = *a.gate;
  render::GateContext ctx = gate_context(a);
  ctx.experiment_file = o.experiment;
  ctx.benchmark_line = e.benchmark.mark.line;
  ctx.reproduce = reproduce_command(o, ctx.base, ctx.head, sides_in_file);
  ctx.seconds = seconds;
  ctx.exit_code = t.regression() ? kRegressionStatus : 0;
  const std::string markdown = render::gate_markdown(t, ctx);
  const std::string junit = render::gate_junit(t, ctx);
  dir.write("gate.md", markdown);
  dir.write("gate.json", render::gate_json(t, ctx));
  dir.write("junit.xml", junit);
  if (!o.comment_file.empty()) files::write_atomic(o.comment_file, markdown);
  if (!o.junit_file.empty()) files::write_atomic(o.junit_file, junit);
  out.out += "\n" + render::gate_text(t, ctx, static_cast<int>(o.width));
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary)
    out.err += append_summary(summary, markdown);
  if (const char* actions = std::getenv("GITHUB_ACTIONS"); actions && std::string_view(actions) == "true")
    out.out += render::gate_annotations(t, ctx);
  if (t.regression()) {
    std::vector<std::string> names;
    for (const auto& row : t.rows)
      if (row.regression())
        names.push_back(fmt::format("{} {} in {}", row.benchmark, row.unit, row.condition));
    out.status = kRegressionStatus;
    out.failure = fmt::format("regression confirmed: {}", fmt::join(names, "; "));
  }
}

}  // namespace noisefloor::pipeline
