# Unit tests: pure logic, linked against the core only (this enforces the pure/edge boundary).
add_executable(noisefloor_unit_tests tests/unit/main.cpp ${NF_UNIT_TESTS})
target_link_libraries(noisefloor_unit_tests PRIVATE noisefloor_core doctest::doctest)
# The test files name the modules' namespaces freely (`using namespace noisefloor::claims;`): they
# stay in batches of 8, where no two meanings of a name meet.
set_target_properties(noisefloor_unit_tests PROPERTIES UNITY_BUILD_BATCH_SIZE 8)
# The tests' own code unoptimised (after NF_OPT on the command line, so it wins): what they run is
# the core's, built as the build type says. Both test programs from scratch on 2 cores (an AMD EPYC
# guest, at b8a3b9d): 67.8 s against 87.1 s at -O1 (101.8 s of CPU against 130.6 s), for 2.34 s
# against 0.86 s of the unit tests' own run.
set(NF_TEST_OPT -O0)
# doctest's assertions as calls, not each a try/catch of its own (a failure reads the same; an
# exception in an assertion's expression fails its test case): 61.2 s -> 55.0 s for both test
# programs (91.0 s of CPU -> 82.9 s), at 2477a57.
set(NF_TEST_DEFINITIONS DOCTEST_CONFIG_SUPER_FAST_ASSERTS)
target_compile_options(noisefloor_unit_tests PRIVATE ${NF_TEST_OPT})
target_compile_definitions(noisefloor_unit_tests PRIVATE ${NF_TEST_DEFINITIONS})
target_compile_definitions(noisefloor_unit_tests PRIVATE NF_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/tests/data")
add_test(NAME unit COMMAND noisefloor_unit_tests)
set_tests_properties(unit PROPERTIES LABELS unit)

# The inputs kept from fuzzing, replayed (tests/fuzz/README.md).
include(tests/fuzz/fuzz.cmake)

# A workload of known cost for the measurement checks (tests/integration/burn.cpp).
add_executable(nf-burn tests/integration/burn.cpp)
set_target_properties(nf-burn PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# Tests side by side: `make test` runs ctest -j with tests/resources.json, two Docker engines (the
# default one and a second, `make engines`). A test that runs containers asks for one
# (RESOURCE_GROUPS engines:1) and runs through tests/integration/engine.sh, which points
# DOCKER_HOST at the engine CTest gave it: each engine serves one test at a time, as noisefloor's
# lease wants. Tests that share a fixed place of this machine take a lock: `fleet` (the sshd and
# the extra engines of tests/integration/fleet_lib.sh), `podman` (its one service).
set(NF_WITH_ENGINE bash ${CMAKE_SOURCE_DIR}/tests/integration/engine.sh)

# I/O tests: real processes and the real Docker engine, through the edge libraries.
list(APPEND NF_IO_TESTS tests/integration/process_test.cpp)
if(NF_IO_TESTS)
  add_executable(noisefloor_io_tests tests/integration/main.cpp ${NF_IO_TESTS} ${NF_IO_TEST_SERVER_SOURCES})
  target_link_libraries(noisefloor_io_tests PRIVATE noisefloor_io doctest::doctest PkgConfig::HTTPLIB)
  target_compile_options(noisefloor_io_tests PRIVATE ${NF_TEST_OPT})
  target_compile_definitions(noisefloor_io_tests PRIVATE ${NF_TEST_DEFINITIONS})
  target_compile_definitions(noisefloor_io_tests PRIVATE NF_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/tests/data"
                                                         NF_BURN="$<TARGET_FILE:nf-burn>")
  add_dependencies(noisefloor_io_tests nf-burn)
  # A test case that can skip (tests/integration/skip.hpp) runs as an entry of its own, so that
  # `ctest` prints its skip as Skipped: create warnings can only be provoked on API 1.41 engines.
  set(NF_IO_WARNINGS_CASE "docker: create warnings are an error and leave nothing behind")
  add_test(NAME io COMMAND ${NF_WITH_ENGINE} $<TARGET_FILE:noisefloor_io_tests> "--test-case-exclude=${NF_IO_WARNINGS_CASE}")
  add_test(NAME io_docker_create_warnings
           COMMAND ${NF_WITH_ENGINE} $<TARGET_FILE:noisefloor_io_tests> "--test-case=${NF_IO_WARNINGS_CASE}")
  set_tests_properties(io io_docker_create_warnings PROPERTIES LABELS integration SKIP_RETURN_CODE 77 TIMEOUT 900
                       RESOURCE_GROUPS engines:1)
endif()

# `make test` builds the programs the tests drive (nf_programs) and leaves the test programs (about
# 110 s of compiling, 55 s on 2 CPUs before any test could start) to the first test CTest starts,
# build_test_programs: one compile at a time, beside the tests that measure the room, which take a
# light test beside them (one busy process: what they are built to tolerate) and otherwise leave a
# CPU idle. The tests that run a test program require it (the fixture test_programs); after
# `make build` it finds nothing to do. ctest -R/-L adds it wherever a chosen test needs it.
add_custom_target(nf_programs DEPENDS noisefloor noisefloor-server nf-burn manpage nf_version)
add_test(NAME build_test_programs
         COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} -j 1 --target noisefloor_unit_tests
                 noisefloor_io_tests nf-fuzz-replay)
set_tests_properties(build_test_programs PROPERTIES LABELS unit TIMEOUT 1200 FIXTURES_SETUP test_programs)
set_property(TEST unit io io_docker_create_warnings fuzz_corpus APPEND PROPERTY FIXTURES_REQUIRED test_programs)

# The structure and the golden files, checked by small Python scripts (python3 comes with
# scripts/bootstrap.sh): every #include goes down the layers of harness/README.md, and every
# golden file agrees with an independent computation from the raw data; every "§3.x" the code
# cites is a section of harness/stats/README.md.
add_test(NAME layering COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/layering.py)
# Every C++ file as clang-format leaves it (`make format`); skipped (77) without clang-format
# outside CI, failed in CI.
# (format and scale: a session of their own, as tests/integration/engine.sh gives every end-to-end test)
add_test(NAME format COMMAND setsid --wait python3 ${CMAKE_SOURCE_DIR}/tests/format_check.py)
set_tests_properties(format PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
add_test(NAME golden_verify COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/golden/verify.py)
add_test(NAME spec_refs COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/spec_refs.py)
# The house's figures (function length, where JSON lives, one generator, duplicates, string
# comparisons with literals) within the limits of tests/code_metrics.json.
add_test(NAME code_metrics COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/code_metrics_check.py)
set_tests_properties(code_metrics PROPERTIES LABELS unit)
# noisefloor(1) holds every command and option --help lists, and man renders it.
add_test(NAME manpage COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/manpage_check.py $<TARGET_FILE:noisefloor>)
set_tests_properties(manpage PROPERTIES LABELS unit)
# Every link between README.md, CONTRIBUTING.md and docs/ leads to a file and heading that exist.
add_test(NAME doc_links COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/doc_links.py)
set_tests_properties(layering golden_verify spec_refs doc_links PROPERTIES LABELS unit)

# Every reading path (cv, compare, report, check, in their formats) grows linearly with the rows:
# their CPU time at 500 and 4000 benchmarks, back to back, within 2.5x of the linear ratio (issue
# 41). Left out of the sanitized pass (`waiting`): under ASan the allocator's own growth is timed.
# It keeps a CPU busy for about 17 s: a test that loads the room (tests/integration/tests.cmake).
add_test(NAME scale COMMAND setsid --wait python3 ${CMAKE_SOURCE_DIR}/tests/scale_check.py $<TARGET_FILE:noisefloor>)
set_tests_properties(scale PROPERTIES LABELS "unit;waiting" TIMEOUT 900)

# End-to-end tests: the installed binary driven like a user would, from bash.
include(tests/integration/tests.cmake OPTIONAL)
