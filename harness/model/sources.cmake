list(APPEND NF_CORE_SOURCES harness/model/cpulist.cpp harness/model/go_config.cpp harness/model/units.cpp
     harness/model/names.cpp harness/model/sweep.cpp harness/model/simulation.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/model_cpulist_test.cpp tests/unit/model_names_test.cpp
     tests/unit/model_simulation_test.cpp)
