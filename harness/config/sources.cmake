list(APPEND NF_CORE_SOURCES harness/config/experiment_file.cpp harness/config/reader.cpp
     harness/config/read_benchmark.cpp harness/config/read_conditions.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/config_test.cpp)
