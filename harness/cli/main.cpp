// noisefloor: argv → options → one pipeline call → print. The only place that prints errors and
// picks exit codes (model/exit_status.hpp: 0 ok, 1 run failed, 2 usage or configuration error, 3 a
// claim NOT REPRODUCED, 4 a regression confirmed, 130 interrupted).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/manpage.hpp"
#include "cli/signals.hpp"
#include "model/errors.hpp"
#include "model/exit_status.hpp"
#include "model/version.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

namespace {

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

// Writes `text` through text::terminal_safe a piece of about 1 MiB at a time, each ending at a
// newline (no escape sequence or UTF-8 character spans one): the table of 10^5 benchmarks is
// tens of megabytes, and a safe copy of it whole was the command's peak memory.
void write_safe(std::FILE* to, std::string_view text) {
  constexpr std::size_t kPiece = 1u << 20;
  while (!text.empty()) {
    std::size_t cut = text.size() <= kPiece ? text.size() : text.find('\n', kPiece);
    cut = cut == std::string_view::npos ? text.size() : std::min(text.size(), cut + 1);
    const std::string safe = noisefloor::text::terminal_safe(text.substr(0, cut));
    std::fwrite(safe.data(), 1, safe.size(), to);
    text.remove_prefix(cut);
  }
}

// Prints what a command returned; the exit status it implies.
int print(const noisefloor::pipeline::Output& o) {
  // Warnings first: on a terminal they head what they qualify.
  // Names from benchmark output and messages from engines are in there: no escape sequence of
  // theirs reaches the terminal (text::terminal_safe), in a file or on a screen.
  write_safe(stderr, o.err);
  std::fflush(stderr);
  write_safe(stdout, o.out);
  if (o.stream) o.stream([](std::string_view piece) { write_safe(stdout, piece); });
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
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(s->get_name());
  const std::string list = fmt::format("{}", fmt::join(commands, ", "));
  if (args.empty())
    return fmt::format(
        "give a command: {} (`noisefloor --help` says what each does; `make bench-docker` runs "
        "the demo)",
        list);
  const std::string& first = args.front();
  if (first.empty() || first.front() == '-') return "";  // --help, --version, or CLI11's own message
  CLI::App* sub = nullptr;
  for (CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == first) sub = s;
  if (sub == nullptr) {
    const std::string near = noisefloor::text::closest(first, commands);
    return near.empty()
               ? fmt::format("unknown command \"{}\": the commands are {} (`noisefloor --help`)", first, list)
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
    return near.empty() ? fmt::format("{}: unknown option {} (`noisefloor {} --help` lists its options)",
                                      first, name, first)
                        : fmt::format("{}: unknown option {} (did you mean {}?)", first, name, near);
  }
  return "";
}

// What CLI11 could not parse, as one line naming the command and where its options are listed.
int usage_error(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands()) sub = s;
  std::fprintf(stderr, "noisefloor: %s%s (`noisefloor%s --help` lists what it takes)\n",
               sub ? (sub->get_name() + ": ").c_str() : "", e.what(),
               sub ? (" " + sub->get_name()).c_str() : "");
  return noisefloor::model::code(noisefloor::model::ExitStatus::usage);
}

// The exit status of a command that threw, its error printed.
int failed(const std::exception_ptr& error) {
  using namespace noisefloor;
  using model::code, model::ExitStatus;
  const auto say = [](const char* prefix, const char* what) {
    std::fprintf(stderr, "%s%s\n", prefix, text::terminal_safe(what).c_str());
  };
  try {
    std::rethrow_exception(error);
  } catch (const Interrupted& e) {
    say("noisefloor: ", e.what());
    return code(ExitStatus::interrupted);
  } catch (const ConfigError& e) {  // "file:line:col: message"
    say("", e.what());
    return code(ExitStatus::usage);
  } catch (const InputError& e) {  // "file: message"
    say("", e.what());
    return code(ExitStatus::usage);
  } catch (const Error& e) {
    say("noisefloor: ", e.what());
    return code(cli::stop_signal() != 0 ? ExitStatus::interrupted : ExitStatus::failed);
  } catch (const std::exception& e) {
    say("noisefloor: internal error: ", e.what());
    return code(ExitStatus::failed);
  }
}

}  // namespace

int run_main(int argc, char** argv) {
  using namespace noisefloor;
  // A spinner: the noisefloor binary re-executed (see process::SpinnerSet).
  if (argc == 3 && std::string(argv[1]) == "__spin") process::spin_forever(std::stoi(argv[2]));

  CLI::App app{"noisefloor: " + std::string(cli::kSummary)};
  app.set_version_flag("--version", std::string("noisefloor ") + kVersion + " (" + kCommit + ")");
  app.name("noisefloor");
  app.require_subcommand(1);
  cli::Commands commands(app, joined_command_line(argc, argv));
  app.footer(cli::exit_status_footer());  // after the commands: theirs do not inherit it
  // `noisefloor __manpage FILE`: noisefloor(1), from the definitions just declared (the build
  // writes it, `make install` installs it).
  if (argc == 3 && std::string(argv[1]) == "__manpage") {
    const std::string page = cli::manpage(app, std::string("noisefloor ") + kVersion);
    std::FILE* f = std::fopen(argv[2], "w");
    const bool ok = f != nullptr && std::fwrite(page.data(), 1, page.size(), f) == page.size();
    if (f != nullptr && std::fclose(f) != 0) return 1;
    return ok ? 0 : 1;
  }

  // `noisefloor help [COMMAND]`: what users of git and go type.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "help") {
    args.erase(args.begin());
    args.push_back("--help");
  }
  if (const std::string problem = usage_problem(app, args); !problem.empty()) {
    std::fprintf(stderr, "noisefloor: %s\n", problem.c_str());
    return model::code(model::ExitStatus::usage);
  }
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? app.exit(e) : usage_error(app, e);  // --help, --version exit 0
  }
  try {
    // A command that returned normally finished its work: a stop request that came after it (a
    // run's record already says complete) does not make it "interrupted".
    return print(commands.run_chosen([] { return cli::stop_signal() != 0; }));
  } catch (...) {
    return failed(std::current_exception());
  }
}

int main(int argc, char** argv) {
  const int code = run_main(argc, argv);
  noisefloor::cli::mark_done();  // the stop-now watch lets a finished cleanup end normally
  return code;
}
