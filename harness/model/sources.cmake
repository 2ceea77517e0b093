list(APPEND NF_CORE_SOURCES harness/model/cpulist.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/model_cpulist_test.cpp)
