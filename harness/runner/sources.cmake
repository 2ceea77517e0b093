list(APPEND NF_CORE_SOURCES harness/runner/runner.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/runner_test.cpp)
