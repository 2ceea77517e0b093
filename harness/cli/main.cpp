// noisefloor: argv → options → one pipeline call → print. The only place that prints errors and
// picks exit codes: 0 ok, 1 run failed, 2 usage or configuration error, 130 interrupted.
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cli/progress.hpp"
#include "model/errors.hpp"
#include "model/version.hpp"
#include "pipeline/commands.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

namespace {

std::atomic<int> g_signal{0};    // the first stop request's signal
std::atomic<int> g_requests{0};  // how many stop requests arrived
std::atomic<bool> g_done{false};
int g_wake[2] = {-1, -1};        // the handler tells the stop-now thread through this pipe

// The first SIGINT/SIGTERM/SIGHUP only sets a flag: the runner notices it, stops what it started
// and unwinds through the RAII guards, so nothing is left behind. A second one means "stop now":
// see stop_now_watch.
extern "C" void on_signal(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  g_requests.fetch_add(1);
  noisefloor::process::notify_stop();
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &byte, 1);
}

// After a second stop request, the cleanup still under way (removing a container, waiting for a
// benchmark's tree to end) gets 2 s; then noisefloor exits at once. What it started on the host
// dies with it (spinners by their death signal, the benchmark's tree by its probe, which sees
// noisefloor's pipe close); a container's probe stops the benchmark when noisefloor's stream
// closes, so at most a stopped container remains, and `noisefloor gc` removes it.
void stop_now_watch() {
  int seen = 0;
  char byte;
  while (::read(g_wake[0], &byte, 1) == 1)
    if (++seen >= 2) break;
  if (seen < 2) return;
  for (int i = 0; i < 40 && !g_done.load(); ++i) ::usleep(50'000);
  if (g_done.load()) return;
  static const char kMessage[] =
      "\nnoisefloor: stopped at once (asked twice): the cleanup still under way was cut short. The samples "
      "measured so far are kept; processes it started end with it; a container of this run may be left "
      "(stopped): `noisefloor gc` removes it.\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(130);
}

void install_signal_handlers() {
  if (::pipe2(g_wake, O_CLOEXEC) == 0) std::thread(stop_now_watch).detach();
  noisefloor::process::arm_stop_notifications();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

// Colour only on a terminal, never with NO_COLOR (https://no-color.org: set and non-empty) or
// TERM=dumb.
bool use_color(int fd) {
  if (::isatty(fd) != 1) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return !(term != nullptr && std::string(term) == "dumb");
}

// The columns of the terminal stdout is (at least 80, at most 240); 80 when it is not one.
std::size_t stdout_columns() {
  winsize w{};
  if (::isatty(STDOUT_FILENO) != 1 || ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) != 0 || w.ws_col == 0) return 80;
  return std::clamp<std::size_t>(w.ws_col, 80, 240);
}

// Prints what a command returned; the exit status it implies.
int print(const noisefloor::pipeline::Output& o) {
  // Warnings first: on a terminal they head what they qualify.
  // Names from benchmark output and messages from engines are in there: no escape sequence of
  // theirs reaches the terminal (text::terminal_safe), in a file or on a screen.
  const std::string err = noisefloor::text::terminal_safe(o.err), out = noisefloor::text::terminal_safe(o.out);
  std::fwrite(err.data(), 1, err.size(), stderr);
  std::fflush(stderr);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!o.failure.empty()) {
    std::fprintf(stderr, "noisefloor: %s\n", noisefloor::text::terminal_safe(o.failure).c_str());
    return o.status != 0 ? o.status : 1;
  }
  return o.status;
}

// The mistakes CLI11 answers without saying what was meant: a misspelled or missing command, an
// option the command does not have. "" when the arguments look right (CLI11 then parses them).
std::string usage_problem(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> commands;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(s->get_name());
  const std::string list = fmt::format("{}", fmt::join(commands, ", "));
  if (args.empty())
    return fmt::format("give a command: {} (`noisefloor --help` says what each does; `make bench-docker` runs "
                       "the demo)",
                       list);
  const std::string& first = args.front();
  if (first.empty() || first.front() == '-') return "";  // --help, --version, or CLI11's own message
  CLI::App* sub = nullptr;
  for (CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == first) sub = s;
  if (sub == nullptr) {
    const std::string near = noisefloor::text::closest(first, commands);
    return near.empty() ? fmt::format("unknown command \"{}\": the commands are {} (`noisefloor --help`)", first, list)
                        : fmt::format("unknown command \"{}\" (did you mean `noisefloor {}`?): the commands are {}",
                                      first, near, list);
  }
  // Options: every long name the command and the top level know.
  std::vector<std::string> names;
  for (const CLI::App* a : {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(sub)})
    for (const CLI::Option* opt : a->get_options())
      for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  names.push_back("--help");
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    const std::string near = noisefloor::text::closest(name, names);
    return near.empty()
               ? fmt::format("{}: unknown option {} (`noisefloor {} --help` lists its options)", first, name, first)
               : fmt::format("{}: unknown option {} (did you mean {}?)", first, name, near);
  }
  return "";
}

}  // namespace

int run_main(int argc, char** argv) {
  using namespace noisefloor;
  // A spinner: the noisefloor binary re-executed (see process::SpinnerSet).
  if (argc == 3 && std::string(argv[1]) == "__spin") process::spin_forever(std::stoi(argv[2]));

  CLI::App app{"noisefloor: reproducible benchmark experiments, and whether their numbers can be trusted"};
  app.set_version_flag("--version", std::string("noisefloor ") + kVersion + " (" + kCommit + ")");
  app.name("noisefloor");
  app.require_subcommand(1);

  pipeline::RunOptions run;
  bool quiet = false;
  auto* run_cmd = app.add_subcommand("run", "run an experiment and publish its per-condition table");
  run_cmd->add_option("experiment", run.experiment,
                      "experiment file (YAML); with --resume, optional: the run's own file by default");
  run_cmd->add_option("--resume", run.resume,
                      "go on with an interrupted or failed run: its directory (results/<experiment>/<run>)");
  run_cmd->add_flag("--allow-different-hosts", run.allow_different_hosts,
                    "with --resume: accept a host whose benchmark-moving facts differ from the run's");
  run_cmd->add_option("--results", run.results_root, "where result directories go")->capture_default_str();
  run_cmd->add_option("--host", run.hosts,
                      "run on this Docker context or engine endpoint (unix://, tcp://, ssh://user@host[:port]); "
                      "repeatable: the hosts run in parallel, one table each; replaces the experiment's hosts:");
  std::string wait_text;
  run_cmd->add_flag("--wait", wait_text,
                    "when another noisefloor run holds an engine, wait for it instead of failing: at most an hour, "
                    "or --wait=DURATION (10m, 90s)");
  run_cmd->add_flag("-q,--quiet", quiet, "no progress output");
  run_cmd->add_flag("--check", run.check,
                    "exit 3 when one of the experiment's claims is NOT REPRODUCED (guard a published result in CI)");
  run_cmd->add_option("--anchor", run.anchor,
                      "an earlier clean result of the same machine: print how contended this run was");

  std::vector<std::string> validate_files;
  auto* validate_cmd = app.add_subcommand("validate", "check experiment files without running them");
  validate_cmd->add_option("files", validate_files, "experiment files")->required();

  pipeline::CvOptions cv;
  auto* cv_cmd = app.add_subcommand("cv", "recompute the table from results or go test -bench output files");
  cv_cmd->add_option("paths", cv.paths, "result directories or go test -bench output files")->required();
  cv_cmd->add_option("--format", cv.format,
                     "text (the terminal's width, at least 80 columns; the default on a terminal), markdown (the default otherwise), json, csv or "
                     "summary (the demo's cv-summary.txt)");
  cv_cmd->add_flag("--allow-different-hosts", cv.allow_different_hosts,
                   "merge results even when fingerprint fields that move benchmarks differ");

  pipeline::CompareOptions compare;
  auto* compare_cmd =
      app.add_subcommand("compare", "compare two results benchmark by benchmark (unpaired, benchstat-style)");
  compare_cmd->add_option("old", compare.old_path, "baseline: a result directory or a go test -bench output file")
      ->required();
  compare_cmd->add_option("new", compare.new_path, "variant: a result directory or a go test -bench output file")
      ->required();
  compare_cmd->add_option("--format", compare.format, "text, json or csv")->capture_default_str();
  compare_cmd->add_option("--threshold", compare.threshold,
                          "noise threshold θ of the verdicts: a percentage (1%) or a fraction (0.01)")
      ->capture_default_str();
  compare_cmd->add_flag("--allow-different-hosts", compare.allow_different_hosts,
                        "compare even when fingerprint fields that move benchmarks differ");
  compare_cmd->add_flag("--allow-different-labels", compare.allow_different_labels,
                        "compare rows whose sides were measured in rooms of different cleanliness (e.g. "
                        "MEASURED-clean against CONTENDED); refused otherwise");

  pipeline::ReportOptions report;
  auto* report_cmd = app.add_subcommand("report", "a self-contained HTML report with plots, or exports to paste");
  report_cmd->add_option("results", report.paths, "result directories (several: merged) or go test -bench files")
      ->required();
  report_cmd->add_option("--html", report.html, "write the HTML page here (default: <result>/report.html)");
  report_cmd->add_option("--format", report.format, "print an export instead: markdown, csv, json, gotest or summary");
  report_cmd->add_flag("--allow-different-hosts", report.allow_different_hosts,
                       "merge results even when fingerprint fields that move benchmarks differ");
  report_cmd->add_flag("--redact", report.redact,
                       "leave the environment's values and the kernel command line out of what is published");

  pipeline::CheckOptions check;
  std::uint64_t check_seed = 0;
  auto* check_cmd = app.add_subcommand(
      "check", "judge claims on results without running anything: REPRODUCED, NOT REPRODUCED (exit 3) or INCONCLUSIVE");
  check_cmd->add_option("results", check.paths, "a result directory, or go test -bench output files (conditions named "
                                                "after the files)")
      ->required();
  check_cmd->add_option("--claim", check.claims,
                        "a claim instead of the recorded ones, e.g. 'cv(noisy) > 2 * cv(idle)' (repeatable)");
  check_cmd->add_option("--reference", check.reference,
                        "a published table to hold the results against: cv-summary.txt, summary.json, a result "
                        "directory or a markdown table");
  auto* seed_option = check_cmd->add_option("--seed", check_seed, "the bootstrap's seed (default: the run's recorded one, else 1)");
  check_cmd->add_option("--format", check.format, "text, markdown or json")->capture_default_str();
  check_cmd->add_flag("--allow-different-hosts", check.allow_different_hosts,
                      "pool results even when fingerprint fields that move benchmarks differ");

  pipeline::HistoryOptions history;
  auto* history_cmd =
      app.add_subcommand("history", "every run of an experiment in time order: medians, CVs, steps between runs");
  history_cmd->add_option("directory", history.directory, "the experiment's results directory: results/<experiment>")
      ->required();
  history_cmd->add_option("--format", history.format, "text (the default), markdown, csv or json");
  history_cmd->add_option("--html", history.html,
                          "also write a self-contained HTML page with a trend plot per condition here "
                          "(stdout stays empty unless --format is given)");
  history_cmd->add_option("--threshold", history.threshold,
                          "noise threshold of a step: a percentage (2%) or a fraction (0.02)")
      ->capture_default_str();

  auto* gc_cmd = app.add_subcommand("gc", "remove containers that a killed run left behind");

  bool fingerprint_json = false;
  auto* fingerprint_cmd = app.add_subcommand("fingerprint", "show the host, toolchain and engine facts a run records");
  fingerprint_cmd->add_flag("--json", fingerprint_json, "print the JSON instead");

  pipeline::DoctorOptions doctor;
  auto* doctor_cmd = app.add_subcommand("doctor", "can this machine be trusted for benchmarks? findings, fixes, a grade");
  doctor_cmd->add_option("experiment", doctor.experiment, "experiment file: also check the CPUs it pins to");
  doctor_cmd->add_flag("--json", doctor.json, "print the JSON instead");
  doctor_cmd->add_option("--host", doctor.host,
                         "grade another machine: a Docker context or engine endpoint (unix://, tcp://, ssh://)");
  // (--apply and --restore exclude each other: checked below, because CLI11's "Excludes:" note
  // pushes the description out of its column.)
  doctor_cmd->add_flag(
      "--apply", doctor.apply,
      "root: make the safe, reversible fixes (governor, turbo, SMT, ASLR, THP), saving the previous values");
  doctor_cmd->add_flag("--restore", doctor.restore, "root: write back the values --apply saved (not with --apply)");

  // `noisefloor help [COMMAND]`: what users of git and go type.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "help") {
    args.erase(args.begin());
    args.push_back("--help");
  }
  if (const std::string problem = usage_problem(app, args); !problem.empty()) {
    std::fprintf(stderr, "noisefloor: %s\n", problem.c_str());
    return 2;
  }
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, naming the command and where its options are listed.
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : app.get_subcommands()) sub = s;
    std::fprintf(stderr, "noisefloor: %s%s (`noisefloor%s --help` lists what it takes)\n",
                 sub ? (sub->get_name() + ": ").c_str() : "", e.what(),
                 sub ? (" " + sub->get_name()).c_str() : "");
    return 2;
  }

  const pipeline::Cancelled cancelled = [] { return g_signal.load() != 0; };
  try {
    int status = 0;
    if (*run_cmd) {
      // Only a run stops in order on Ctrl-C; every other command ends at once, as commands do.
      install_signal_handlers();
      if (run.experiment.empty() && run.resume.empty())
        throw ConfigError("run: give an experiment file (noisefloor run EXPERIMENT), or --resume RUN_DIR");
      if (!wait_text.empty()) run.wait = pipeline::wait_limit(wait_text);
      run.command_line = joined_command_line(argc, argv);
      run.terminal = ::isatty(STDOUT_FILENO) == 1;
      run.width = stdout_columns();
      cli::Progress progress(quiet, ::isatty(STDERR_FILENO) == 1, use_color(STDERR_FILENO));
      status = print(pipeline::run(run, progress, cancelled));
    } else if (*validate_cmd) {
      status = print(pipeline::validate(validate_files));
    } else if (*cv_cmd) {
      if (cv.format.empty()) cv.format = ::isatty(STDOUT_FILENO) == 1 ? "text" : "markdown";
      cv.width = stdout_columns();
      status = print(pipeline::cv(cv));
    } else if (*compare_cmd) {
      status = print(pipeline::compare(compare));
    } else if (*report_cmd) {
      status = print(pipeline::report(report));
    } else if (*check_cmd) {
      if (*seed_option) check.seed = check_seed;
      check.width = stdout_columns();
      status = print(pipeline::check(check));
    } else if (*history_cmd) {
      status = print(pipeline::history(history));
    } else if (*gc_cmd) {
      status = print(pipeline::gc());
    } else if (*fingerprint_cmd) {
      status = print(pipeline::fingerprint(fingerprint_json));
    } else if (*doctor_cmd) {
      if (doctor.apply && doctor.restore)
        throw ConfigError("doctor: --apply and --restore undo each other: give one of them");
      doctor.color = use_color(STDOUT_FILENO);
      status = print(pipeline::doctor(doctor));  // 1: not ready
    }
    if (status != 0) return status;
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "noisefloor: %s\n", noisefloor::text::terminal_safe(e.what()).c_str());
    return 130;
  } catch (const ConfigError& e) {  // "file:line:col: message"
    std::fprintf(stderr, "%s\n", noisefloor::text::terminal_safe(e.what()).c_str());
    return 2;
  } catch (const InputError& e) {  // "file: message"
    std::fprintf(stderr, "%s\n", noisefloor::text::terminal_safe(e.what()).c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "noisefloor: %s\n", noisefloor::text::terminal_safe(e.what()).c_str());
    return g_signal.load() ? 130 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "noisefloor: internal error: %s\n", noisefloor::text::terminal_safe(e.what()).c_str());
    return 1;
  }
  // A command that returned normally finished its work: a stop request that came after it (a
  // run's record already says complete) does not make it "interrupted".
  return 0;
}

int main(int argc, char** argv) {
  const int code = run_main(argc, argv);
  g_done.store(true);  // the stop-now watch lets a finished cleanup end normally
  return code;
}
