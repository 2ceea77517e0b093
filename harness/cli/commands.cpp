#include "cli/commands.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "cli/progress.hpp"
#include "cli/signals.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::cli {
namespace {

// "2%", "0.5%" or "2" (percent) as a fraction; ConfigError naming the option otherwise.
double percent(std::string_view option, const std::string& text) {
  const auto fraction = text::parse_percent(text);
  if (!fraction)
    throw ConfigError(fmt::format("{} {}: expected a percentage such as 2% or 0.5%", option, text));
  return *fraction;
}

// The options several commands take, each declared here once; the commands word what it does.
void allow_different_hosts(CLI::App* command, bool& flag, const std::string& what) {
  command->add_flag("--allow-different-hosts", flag, what);
}
std::string even_when_hosts_differ(const std::string& what) {
  return what + " even when fingerprint fields that move benchmarks differ";
}
// --format, checked against the formats the command prints before anything runs.
CLI::Option* format_option(CLI::App* command, std::function<void(model::PrintFormat)> set,
                           std::span<const model::PrintFormat> accepted, const std::string& choices) {
  auto* option = command->add_option_function<std::string>(
      "--format",
      [set = std::move(set)](const std::string& name) { set(*model::from_name<model::PrintFormat>(name)); },
      choices);
  option->check(CLI::Validator(
      [accepted](std::string& name) -> std::string {
        const auto format = model::from_name<model::PrintFormat>(name);
        if (format && std::find(accepted.begin(), accepted.end(), *format) != accepted.end()) return "";
        return model::format_problem(name, accepted);
      },
      ""));
  return option;
}
template <class Target>
CLI::Option* format_option(CLI::App* command, Target& target, std::span<const model::PrintFormat> accepted,
                           const std::string& choices) {
  return format_option(
      command, [&target](model::PrintFormat f) { target = f; }, accepted, choices);
}
void threshold_option(CLI::App* command, std::string& threshold, const std::string& what) {
  command->add_option("--threshold", threshold, what)->capture_default_str();
}
void html_option(CLI::App* command, std::string& file, const std::string& what) {
  command->add_option("--html", file, what);
}
void json_flag(CLI::App* command, bool& json) { command->add_flag("--json", json, "print the JSON instead"); }
void host_option(CLI::App* command, std::vector<std::string>& hosts, const std::string& what) {
  command->add_option("--host", hosts, what);
}
void host_option(CLI::App* command, std::string& host, const std::string& what) {
  command->add_option("--host", host, what);
}

// --db of the store's commands.
void db_option(CLI::App* command, std::string& db, const std::string& what) {
  command
      ->add_option("--db", db,
                   what + ": sqlite:PATH (made when missing) or postgresql://... (a libpq URI or keywords)")
      ->capture_default_str();
}

}  // namespace

bool use_color(int fd) {
  if (::isatty(fd) != 1) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return !(term != nullptr && std::string(term) == "dumb");
}

std::size_t stdout_columns() {
  winsize w{};
  if (::isatty(STDOUT_FILENO) != 1 || ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) != 0 || w.ws_col == 0) return 80;
  return std::clamp<std::size_t>(w.ws_col, 80, 240);
}

Commands::Commands(CLI::App& app, std::string command_line) : command_line_(std::move(command_line)) {
  declare_run(app);
  declare_reading(app);
  declare_machine(app);
  declare_store(app);
}

pipeline::Output Commands::run_chosen(const pipeline::Cancelled& cancelled) {
  for (const Entry& e : table_)
    if (*e.command) return e.run(cancelled);
  return {};  // CLI11 requires a command: not reached
}

// run's options of the gate (--base and what goes with it).
void Commands::gate_options(CLI::App& run) {
  run.add_option("--base", run_.base,
                 "the gate: is my change faster? measure this git ref (main, a commit) against --head, each "
                 "built in a checkout of its own; exit 4 when a regression is confirmed");
  run.add_option("--head", run_.head,
                 "with --base: the ref to measure (default: the working tree with its uncommitted changes)");
  run.add_option("--threshold", threshold_,
                 "with --base: changes smaller than this are within noise (default 2%)");
  auto* no_confirm =
      run.add_flag("--no-confirm", run_.no_confirm,
                   "with --base: a regression needs no second block to confirm it, however many "
                   "rows gate (more false alarms)");
  run.add_flag(
         "--confirm", run_.confirm,
         "with --base: a second block confirms every regression the first calls (default: only when more "
         "than 2 rows gate, to keep the gate's false alarms at most 5%)")
      ->excludes(no_confirm);
  run.add_flag("--allow-dirty", run_.allow_dirty,
               "with --base: allow --head HEAD although the working tree has uncommitted changes");
  run.add_option("--comment", run_.comment_file,
                 "with --base: also write the pull-request comment (markdown) to this file");
  run.add_option("--junit", run_.junit_file, "with --base: also write the JUnit XML report to this file");
}

void Commands::declare_run(CLI::App& app) {
  auto* run = app.add_subcommand("run", "run an experiment and publish its per-condition table");
  run->add_option("experiment", run_.experiment,
                  "experiment file (YAML); with --resume, optional: the run's own file by default");
  run->add_option("--resume", run_.resume,
                  "go on with an interrupted or failed run: its directory (results/<experiment>/<run>)");
  allow_different_hosts(run, run_.allow_different_hosts,
                        "with --resume: accept a host whose benchmark-moving facts differ from the run's");
  run->add_option("--results", run_.results_root, "where result directories go")->capture_default_str();
  host_option(run, run_.hosts,
              "run on this Docker context or engine endpoint (unix://, tcp://, ssh://user@host[:port]); "
              "repeatable: the hosts run in parallel, one table each; replaces the experiment's hosts:");
  run->add_flag(
      "--wait", wait_,
      "when another noisefloor run holds an engine, wait for it instead of failing: at most an hour, "
      "or --wait=DURATION (10m, 90s)");
  run->add_flag("-q,--quiet", quiet_, "no progress output");
  run->add_flag(
      "--check", run_.check,
      "exit 3 when one of the experiment's claims is NOT REPRODUCED (guard a published result in CI)");
  run->add_option("--anchor", run_.anchor,
                  "an earlier clean result of the same machine: print how contended this run was");
  gate_options(*run);
  run->add_option("--supersedes", run_.supersedes,
                  "an earlier run whose figures this run replaces (a measurement found wrong): recorded in "
                  "run.json; history, cv and report of that run say so; `noisefloor errata` finds where they "
                  "were quoted");
  table_.push_back({run, [this](const pipeline::Cancelled& cancelled) {
                      // Only a run stops in order on Ctrl-C; every other command ends at once.
                      install_signal_handlers();
                      if (run_.experiment.empty() && run_.resume.empty())
                        throw ConfigError(
                            "run: give an experiment file (noisefloor run EXPERIMENT), or --resume RUN_DIR");
                      if (!wait_.empty()) run_.wait = pipeline::wait_limit(wait_);
                      if (!threshold_.empty()) run_.threshold = percent("--threshold", threshold_);
                      run_.command_line = command_line_;
                      run_.terminal = ::isatty(STDOUT_FILENO) == 1;
                      run_.width = stdout_columns();
                      Progress progress(quiet_, ::isatty(STDERR_FILENO) == 1, use_color(STDERR_FILENO));
                      return pipeline::run(run_, progress, cancelled);
                    }});

  auto* validate = app.add_subcommand("validate", "check experiment files without running them");
  validate->add_option("files", validate_files_, "experiment files")->required();
  table_.push_back(
      {validate, [this](const pipeline::Cancelled&) { return pipeline::validate(validate_files_); }});
}

void Commands::declare_reading(CLI::App& app) {
  auto* cv = app.add_subcommand("cv", "recompute the table from results or go test -bench output files");
  cv->add_option("paths", cv_.paths, "result directories or go test -bench output files")->required();
  format_option(
      cv, cv_format_, pipeline::kCvFormats,
      "text (the terminal's width, at least 80 columns; the default on a terminal), markdown (the default "
      "otherwise), json, csv or summary (the demo's cv-summary.txt)");
  allow_different_hosts(cv, cv_.allow_different_hosts, even_when_hosts_differ("merge results"));
  table_.push_back({cv, [this](const pipeline::Cancelled&) {
                      cv_.format =
                          cv_format_.value_or(::isatty(STDOUT_FILENO) == 1 ? model::PrintFormat::text
                                                                           : model::PrintFormat::markdown);
                      cv_.width = stdout_columns();
                      return pipeline::cv(cv_);
                    }});

  auto* compare =
      app.add_subcommand("compare", "compare two results benchmark by benchmark (unpaired, benchstat-style)");
  compare
      ->add_option("old", compare_.old_path, "baseline: a result directory or a go test -bench output file")
      ->required();
  compare->add_option("new", compare_.new_path, "variant: a result directory or a go test -bench output file")
      ->required();
  format_option(compare, compare_.format, pipeline::kCompareFormats, "text, json or csv")
      ->default_str("text");
  threshold_option(compare, compare_.threshold,
                   "noise threshold θ of the verdicts: a percentage (1%) or a fraction (0.01)");
  allow_different_hosts(compare, compare_.allow_different_hosts, even_when_hosts_differ("compare"));
  compare->add_flag("--allow-different-labels", compare_.allow_different_labels,
                    "compare rows whose sides were measured in rooms of different cleanliness (e.g. "
                    "MEASURED-clean against CONTENDED); refused otherwise");
  table_.push_back({compare, [this](const pipeline::Cancelled&) { return pipeline::compare(compare_); }});

  auto* report = app.add_subcommand("report", "a self-contained HTML report with plots, or exports to paste");
  report->add_option("results", report_.paths, "result directories (several: merged) or go test -bench files")
      ->required();
  html_option(report, report_.html, "write the HTML page here (default: <result>/report.html)");
  format_option(report, report_.format, pipeline::kReportFormats,
                "print an export instead: markdown, csv, json, gotest or summary; or write each sweep's "
                "figure beside the result and print its path: svg (sweep-<group>.svg), png (converted by "
                "rsvg-convert, inkscape or headless chromium, whichever is in PATH)");
  allow_different_hosts(report, report_.allow_different_hosts, even_when_hosts_differ("merge results"));
  report->add_flag("--redact", report_.redact,
                   "leave the environment's values and the kernel command line out of what is published");
  table_.push_back({report, [this](const pipeline::Cancelled&) { return pipeline::report(report_); }});

  auto* check = app.add_subcommand("check",
                                   "judge claims on results without running anything: REPRODUCED, NOT "
                                   "REPRODUCED (exit 3) or INCONCLUSIVE");
  check
      ->add_option("results", check_.paths,
                   "a result directory, or go test -bench output files (conditions named after the files)")
      ->required();
  check->add_option("--claim", check_.claims,
                    "a claim instead of the recorded ones, e.g. 'cv(noisy) > 2 * cv(idle)' (repeatable)");
  check->add_option("--reference", check_.reference,
                    "a published table to hold the results against: cv-summary.txt, summary.json, a result "
                    "directory or a markdown table");
  seed_option_ = check->add_option("--seed", check_seed_,
                                   "the bootstrap's seed (default: the run's recorded one, else 1)");
  format_option(check, check_.format, pipeline::kCheckFormats, "text, markdown or json")->default_str("text");
  allow_different_hosts(check, check_.allow_different_hosts, even_when_hosts_differ("pool results"));
  table_.push_back({check, [this](const pipeline::Cancelled&) {
                      if (*seed_option_) check_.seed = check_seed_;
                      check_.width = stdout_columns();
                      return pipeline::check(check_);
                    }});

  auto* errata = app.add_subcommand(
      "errata", "a number was superseded: find every place that quoted it, and correct them (--apply)");
  errata->add_option("--old", errata_.old_paths, "what published the superseded figures: what cv takes")
      ->required();
  errata->add_option("--new", errata_.new_paths, "what supersedes them: what cv takes")->required();
  errata->add_option(
      "--in", errata_.in,
      "files and directories to search (default: the git-tracked files under the current directory)");
  errata->add_flag(
      "--apply", errata_.apply,
      "rewrite the certain quotations in place, each with a visible correction mark (default: a dry run)");
  format_option(errata, errata_.format, pipeline::kErrataFormats,
                "text (where each figure was quoted; the default), markdown (the erratum to paste) or json")
      ->default_str("text");
  errata->add_option(
      "--see", errata_.see,
      "what each correction mark points to: a pull request, the erratum (default: the --new paths)");
  errata->add_option("--date", errata_.date, "the correction's date, YYYY-MM-DD (default: today, UTC)");
  allow_different_hosts(errata, errata_.allow_different_hosts,
                        even_when_hosts_differ("merge one side's results"));
  table_.push_back({errata, [this](const pipeline::Cancelled&) {
                      errata_.width = stdout_columns();
                      return pipeline::errata(errata_);
                    }});

  auto* history = app.add_subcommand(
      "history", "every run of an experiment in time order: medians, CVs, steps between runs");
  history
      ->add_option("directory", history_.directory,
                   "the experiment's results directory: results/<experiment>")
      ->required();
  format_option(history, history_.format, pipeline::kHistoryFormats,
                "text (the default), markdown, csv or json");
  html_option(history, history_.html,
              "also write a self-contained HTML page with a trend plot per condition here "
              "(stdout stays empty unless --format is given)");
  threshold_option(history, history_.threshold,
                   "noise threshold of a step: a percentage (2%) or a fraction (0.02)");
  table_.push_back({history, [this](const pipeline::Cancelled&) { return pipeline::history(history_); }});
}

void Commands::declare_machine(CLI::App& app) {
  auto* gc = app.add_subcommand(
      "gc",
      "remove containers that a killed run left behind, and gate builds beyond the newest 8 per repository");
  host_option(gc, gc_host_, "another engine: a Docker context or engine endpoint (unix://, tcp://, ssh://)");
  table_.push_back({gc, [this](const pipeline::Cancelled&) { return pipeline::gc(gc_host_); }});

  auto* fingerprint =
      app.add_subcommand("fingerprint", "show the host, toolchain and engine facts a run records");
  json_flag(fingerprint, fingerprint_json_);
  table_.push_back(
      {fingerprint, [this](const pipeline::Cancelled&) { return pipeline::fingerprint(fingerprint_json_); }});

  auto* doctor =
      app.add_subcommand("doctor", "can this machine be trusted for benchmarks? findings, fixes, a grade");
  doctor->add_option("experiment", doctor_.experiment, "experiment file: also check the CPUs it pins to");
  json_flag(doctor, doctor_.json);
  host_option(doctor, doctor_.host,
              "grade another machine: a Docker context or engine endpoint (unix://, tcp://, ssh://)");
  // (--apply and --restore exclude each other: checked when it runs, because CLI11's "Excludes:"
  // note pushes the description out of its column.)
  doctor->add_flag(
      "--apply", doctor_.apply,
      "root: make the safe, reversible fixes (governor, turbo, SMT, ASLR, THP), saving the previous values");
  doctor->add_flag("--restore", doctor_.restore,
                   "root: write back the values --apply saved (not with --apply)");
  doctor
      ->add_option("--noise-profile", doctor_.noise_profile,
                   "how long to measure the room's noise (a fixed loop and 1 ms sleeps); 0s: not at all")
      ->capture_default_str();
  table_.push_back({doctor, [this](const pipeline::Cancelled& cancelled) {
                      if (doctor_.apply && doctor_.restore)
                        throw ConfigError("doctor: --apply and --restore undo each other: give one of them");
                      doctor_.color = use_color(STDOUT_FILENO);
                      return pipeline::doctor(doctor_, cancelled);  // status 1: not ready
                    }});
}

void Commands::declare_store(CLI::App& app) {
  auto* serve = app.add_subcommand(
      "serve", "the store: keep published runs from many machines in one database, with a page of them");
  db_option(serve, serve_.db, "the database");
  serve->add_option("--listen", serve_.listen, "HOST:PORT to serve on (port 0: any free one, printed)")
      ->capture_default_str();
  serve->add_flag("--private", serve_.private_reads, "reading the pages and the API needs a key too");
  serve
      ->add_option("--rate-limit", serve_.publishes_per_minute,
                   "publishes a client address may make a minute (0: no limit)")
      ->capture_default_str();
  serve
      ->add_option("--idle-timeout", serve_idle_,
                   "a client that sends nothing for this long in the middle of a request is let go")
      ->capture_default_str();
  table_.push_back({serve, [this](const pipeline::Cancelled& cancelled) {
                      serve_.idle = pipeline::serve_idle_timeout(serve_idle_);
                      install_signal_handlers();
                      return pipeline::serve(serve_, cancelled, [](const std::string& line) {
                        std::fprintf(stderr, "%s\n", text::terminal_safe(line).c_str());
                        std::fflush(stderr);
                      });
                    }});

  auto* keys = app.add_subcommand("keys", "the store's upload keys: create (printed once), list, revoke ID");
  keys->add_option("action", keys_.action, "create, list or revoke")->required();
  keys->add_option("id", keys_.id, "revoke: the key's id (keys list shows them)");
  db_option(keys, keys_.db, "the store's database, as serve takes it");
  keys->add_option("--scope", keys_.scope,
                   "create: admin, publish, or publish:experiment=NAME (a talk's audience)")
      ->capture_default_str();
  keys->add_option("--expires", keys_.expires_days, "create: the key stops working after this many days");
  table_.push_back({keys, [this](const pipeline::Cancelled&) { return pipeline::keys(keys_); }});

  auto* publish = app.add_subcommand(
      "publish", "send finished runs to a store (noisefloor serve), with the key in NOISEFLOOR_KEY");
  publish->add_option("results", publish_.results, "run directories, or results/<experiment> for its latest")
      ->required();
  publish->add_option("--to", publish_.to, "the store's URL, e.g. http://127.0.0.1:8080")->required();
  publish->add_option("--key-file", publish_.key_file,
                      "read the key from this file instead of NOISEFLOOR_KEY");
  table_.push_back({publish, [this](const pipeline::Cancelled&) { return pipeline::publish(publish_); }});
}

}  // namespace noisefloor::cli
