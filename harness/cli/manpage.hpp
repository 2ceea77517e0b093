// noisefloor(1): the manual page, written from the same command and option definitions as --help
// (cli/commands.cpp), so the two cannot differ. `make install` installs it; `noisefloor __manpage
// FILE` writes it (the build does, into the build directory).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace noisefloor::cli {

// What noisefloor is, in one line: `--help`'s first line ("noisefloor: " before it) and the page's NAME.
inline constexpr std::string_view kSummary =
    "reproducible benchmark experiments, and whether their numbers can be trusted";

// The page in roff (man(7)): NAME, SYNOPSIS, every command with its arguments and options and
// their descriptions as --help gives them, EXIT STATUS, FILES, SEE ALSO.
// SYNOPSIS: each command's usage line as --help prints it; EXIT STATUS: model::kExitStatuses.
std::string manpage(const CLI::App& app, std::string_view version);

// The exit statuses for `noisefloor --help`, under the commands (the same table as the page's).
std::string exit_status_footer();

}  // namespace noisefloor::cli
