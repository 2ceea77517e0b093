list(APPEND NF_CORE_SOURCES harness/process/cpus.cpp)
list(APPEND NF_IO_SOURCES harness/process/process.cpp harness/process/usable_cpus.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/process_cpus_test.cpp)
list(APPEND NF_IO_TESTS tests/integration/process_cpus_test.cpp)
