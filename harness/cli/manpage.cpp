#include "cli/manpage.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "model/exit_status.hpp"

namespace noisefloor::cli {
namespace {

// Text for roff: backslashes doubled, a leading '.' or '\'' (a request) escaped, '-' as \- (a
// hyphen that man keeps as ASCII when it is pasted into a shell).
std::string roff(std::string_view s) {
  std::string out;
  bool line_start = true;
  for (const char c : s) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// "--format FORMAT", "--quiet", "EXPERIMENT" (a positional), as --help names them.
std::string option_head(const CLI::Option& o) {
  if (o.get_positional()) return fmt::format("\\fI{}\\fR", roff(o.get_name()));
  std::vector<std::string> names;
  for (const auto& s : o.get_snames()) names.push_back("\\-" + roff(s));
  for (const auto& l : o.get_lnames()) names.push_back("\\-\\-" + roff(l));
  std::string head = "\\fB" + fmt::format("{}", fmt::join(names, ", ")) + "\\fR";
  if (o.get_type_size() != 0 && !o.get_type_name().empty())
    head += " \\fI" + roff(o.get_type_name()) + "\\fR";
  return head;
}

void options_of(const CLI::App& command, std::string& out) {
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_group().empty() || o->get_name() == "--help" || o->get_name() == "-h,--help") continue;
    if (o->get_lnames().size() == 1 && o->get_lnames().front() == "help") continue;
    out += ".TP\n" + option_head(*o) + "\n" + roff(o->get_description()) + "\n";
  }
}

// Each command's usage line as its --help prints it ("noisefloor run [OPTIONS] [experiment]"),
// then `help` and --version, which main and the application add.
std::string synopsis(const CLI::App& app) {
  const auto formatter = std::dynamic_pointer_cast<const CLI::Formatter>(app.get_formatter());
  std::string out = ".SH SYNOPSIS\n";
  for (const CLI::App* command :
       app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    const std::string name = "noisefloor " + command->get_name();
    std::string usage = formatter ? formatter->make_usage(command, name) : name;
    if (const auto at = usage.find(name); at != std::string::npos) usage.erase(0, at + name.size());
    while (!usage.empty() && (usage.back() == '\n' || usage.back() == ' ')) usage.pop_back();
    out += fmt::format(".B {}\n{}\n.br\n", roff(name), roff(usage.empty() ? "" : usage.substr(1)));
  }
  out += ".B noisefloor help\n[COMMAND]\n.br\n";
  if (app.get_version_ptr() != nullptr) out += ".B noisefloor \\-\\-version\n";
  return out;
}

}  // namespace

std::string exit_status_footer() {
  std::string out = "Exit status:\n";
  for (const auto& [status, meaning] : model::kExitStatuses)
    out += fmt::format("  {:<4} {}\n", model::code(status), meaning);
  return out;
}

std::string manpage(const CLI::App& app, std::string_view version) {
  std::string out = fmt::format(".TH NOISEFLOOR 1 \"\" \"{}\" \"User Commands\"\n", roff(version));
  out += ".SH NAME\nnoisefloor \\- " + roff(kSummary) + "\n";
  out += synopsis(app);
  out +=
      ".SH DESCRIPTION\nnoisefloor runs one benchmark under the conditions an experiment file names (the "
      "idle "
      "host, background CPU spinners, a container pinned with a cpuset, a CPU quota and a memory limit, "
      "affinity and priority), keeps every sample, and publishes a per\\-condition table with the host, "
      "toolchain and engine fingerprint that produced it. `noisefloor COMMAND \\-\\-help' says the same as "
      "the section of COMMAND below.\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* command :
       app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    out += ".SS " + roff(command->get_name()) + "\n" + roff(command->get_description()) + "\n";
    options_of(*command, out);
  }
  out += ".SH EXIT STATUS\n";
  for (const auto& [status, meaning] : model::kExitStatuses)
    out += fmt::format(".TP\n{}\n{}\n", model::code(status), roff(meaning));
  out +=
      ".SH FILES\n.TP\nresults/\\fIEXPERIMENT\\fR/\\fITIMESTAMP\\fR/\nsamples.jsonl, run.json, "
      "fingerprint.json, summary.json, table.md, report.html (and gate.md, gate.json, junit.xml for a gate)\n"
      ".TP\n~/.cache/noisefloor/builds\nthe gate's checkouts and cached builds (\\fB$XDG_CACHE_HOME\\fR)\n";
  out +=
      ".SH ENVIRONMENT\n.TP\nDOCKER_HOST, DOCKER_CONTEXT\nthe Docker (or Podman) engine that container "
      "conditions use\n.TP\nNO_COLOR\nno colour on a terminal\n";
  out +=
      ".SH SEE ALSO\nThe README and the user guide (docs/) of the noisefloor repository; "
      "harness/stats/README.md for the statistics.\n";
  return out;
}

}  // namespace noisefloor::cli
