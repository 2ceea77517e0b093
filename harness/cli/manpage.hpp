// noisefloor(1): the manual page, written from the same command and option definitions as --help
// (cli/commands.cpp), so the two cannot differ. `make install` installs it; `noisefloor __manpage
// FILE` writes it (the build does, into the build directory).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace noisefloor::cli {

// The page in roff (man(7)): NAME, SYNOPSIS, every command with its arguments and options and
// their descriptions as --help gives them, EXIT STATUS, FILES, SEE ALSO.
std::string manpage(const CLI::App& app, std::string_view version);

}  // namespace noisefloor::cli
