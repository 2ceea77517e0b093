// The report page of a finished run (cli/report_command.cpp). `noisefloor report` itself is
// declared in cli/commands.hpp.
#pragma once

#include <filesystem>

namespace noisefloor::cli {

// Writes <run_dir>/report.html (atomically) from the result files already in run_dir: call it
// after summary.json and the raw files are written. Throws noisefloor::Error (RunError when a
// file cannot be read).
void write_run_report(const std::filesystem::path& run_dir);

}  // namespace noisefloor::cli
