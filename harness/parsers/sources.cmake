# Benchmark-output parsers: pure (text in, Measurements out).
list(APPEND NF_CORE_SOURCES harness/parsers/gotest.cpp harness/parsers/gbench_json.cpp
     harness/parsers/published.cpp harness/parsers/cachegrind.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/parsers_gotest_test.cpp tests/unit/parsers_gbench_test.cpp
     tests/unit/parsers_published_test.cpp tests/unit/parsers_cachegrind_test.cpp)
