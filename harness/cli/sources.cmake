set(NF_CLI_SOURCES harness/cli/run_command.cpp harness/cli/cv_command.cpp harness/cli/gc_command.cpp
    harness/cli/progress.cpp harness/cli/fingerprint_view.cpp harness/cli/compare_command.cpp
    harness/cli/fingerprint_command.cpp harness/cli/report_command.cpp)
