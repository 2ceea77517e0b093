# cli/: options, one pipeline call per command, printing, exit codes (the executable only).
set(NF_CLI_SOURCES harness/cli/progress.cpp harness/cli/commands.cpp harness/cli/signals.cpp harness/cli/manpage.cpp)
