list(APPEND NF_CORE_SOURCES harness/config/experiment_file.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/config_test.cpp)
