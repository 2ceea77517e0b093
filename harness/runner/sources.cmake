list(APPEND NF_CORE_SOURCES harness/runner/runner.cpp)
list(APPEND NF_IO_SOURCES harness/runner/host_environment.cpp harness/runner/container_scope.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/runner_test.cpp)
