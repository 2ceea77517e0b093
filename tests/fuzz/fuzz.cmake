# The fuzz targets (tests/fuzz/README.md).
set(NF_FUZZ_TARGETS experiment gotest gbench demux probe results claims engine errata tree archive)
set(NF_FUZZ_SOURCES)
foreach(target ${NF_FUZZ_TARGETS})
  list(APPEND NF_FUZZ_SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/${target}.cpp)
endforeach()

if(NF_FUZZERS)
  # `make fuzz`: one libFuzzer binary per target (clang), the core instrumented for coverage.
  add_custom_target(fuzzers)
  foreach(target ${NF_FUZZ_TARGETS})
    add_executable(nf-fuzz-${target} tests/fuzz/entry.cpp tests/fuzz/${target}.cpp)
    target_compile_definitions(nf-fuzz-${target} PRIVATE NF_FUZZ_TARGET=${target})
    target_compile_options(nf-fuzz-${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(nf-fuzz-${target} PRIVATE -fsanitize=fuzzer)
    # tree reads files through the edges (pipeline/, results/, files/), archive is zlib's (store/);
    # the others are pure
    set(lib noisefloor_core)
    if(target STREQUAL "tree" OR target STREQUAL "archive")
      set(lib noisefloor_io)
    endif()
    target_link_libraries(nf-fuzz-${target} PRIVATE ${lib})
    add_dependencies(fuzzers nf-fuzz-${target})
  endforeach()
endif()
if(NOT NF_FUZZ)
  # Every build replays the seeds and the kept corpus (CTest fuzz_corpus).
  add_executable(nf-fuzz-replay tests/fuzz/replay.cpp ${NF_FUZZ_SOURCES})
  target_link_libraries(nf-fuzz-replay PRIVATE noisefloor_io)
  add_test(NAME fuzz_seeds COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/fuzz/seeds.py ${CMAKE_BINARY_DIR}/fuzz-seeds)
  add_test(NAME fuzz_corpus
           COMMAND nf-fuzz-replay ${CMAKE_BINARY_DIR}/fuzz-seeds ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus)
  set_tests_properties(fuzz_seeds PROPERTIES LABELS unit FIXTURES_SETUP fuzz_seeds)
  set_tests_properties(fuzz_corpus PROPERTIES LABELS unit FIXTURES_REQUIRED fuzz_seeds)
endif()
