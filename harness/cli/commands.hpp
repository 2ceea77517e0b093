// The commands as a table: each one's options (those several commands share declared once) and
// the pipeline call it makes. main.cpp parses, runs the chosen entry, prints, picks the exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/commands.hpp"

namespace noisefloor::cli {

class Commands {
 public:
  // Declares every command and its options on `app` (which must outlive this).
  Commands(CLI::App& app, std::string command_line);
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;

  // The command the parsed arguments chose, run. Throws noisefloor::Error as the pipeline does.
  pipeline::Output run_chosen(const pipeline::Cancelled& cancelled);

 private:
  struct Entry {
    CLI::App* command;
    std::function<pipeline::Output(const pipeline::Cancelled&)> run;
  };
  void declare_run(CLI::App& app);
  void gate_options(CLI::App& run);
  void declare_reading(CLI::App& app);
  void declare_machine(CLI::App& app);
  void declare_store(CLI::App& app);

  std::string command_line_;
  std::vector<Entry> table_;
  pipeline::RunOptions run_;
  bool quiet_ = false;
  std::string wait_;
  std::string threshold_;  // run --threshold, as given
  std::vector<std::string> validate_files_;
  pipeline::CvOptions cv_;
  std::optional<model::PrintFormat> cv_format_;  // none: text on a terminal, else markdown
  pipeline::CompareOptions compare_;
  pipeline::ReportOptions report_;
  pipeline::CheckOptions check_;
  std::uint64_t check_seed_ = 0;
  CLI::Option* seed_option_ = nullptr;
  pipeline::HistoryOptions history_;
  pipeline::ErrataOptions errata_;
  bool fingerprint_json_ = false;
  std::string gc_host_;  // gc --host
  pipeline::DoctorOptions doctor_;
  store::ServeOptions serve_;
  std::string serve_idle_ = "10s";  // --idle-timeout, as written
  pipeline::KeysOptions keys_;
  pipeline::PublishOptions publish_;
};

// Colour only on a terminal, never with NO_COLOR (https://no-color.org: set and non-empty) or
// TERM=dumb.
bool use_color(int fd);

// The columns of the terminal stdout is (at least 80, at most 240); 80 when it is not one.
std::size_t stdout_columns();

}  // namespace noisefloor::cli
