list(APPEND NF_CORE_SOURCES harness/probe/probe_report.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/probe_report_test.cpp tests/unit/probe_counters_test.cpp)

# The auto image's entrypoint: static (the image may hold no libc); it links nothing of the core.
# It is embedded in noisefloor (image/embedded.hpp), so it is neither installed nor looked up.
add_executable(nf-probe harness/probe/nf_probe.cpp)
target_include_directories(nf-probe PRIVATE ${CMAKE_SOURCE_DIR}/harness)  # header-only helpers
target_link_options(nf-probe PRIVATE -static)
set_target_properties(nf-probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# The no-op whose start and exit is the launcher overhead: no C library, one system call.
add_executable(nf-noop harness/probe/nf_noop.cpp)
target_compile_options(nf-noop PRIVATE -O2 -fno-exceptions -fno-asynchronous-unwind-tables -fno-stack-protector)
target_link_options(nf-noop PRIVATE -nostdlib -static -Wl,--build-id=none)
set_target_properties(nf-noop PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
