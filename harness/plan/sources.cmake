list(APPEND NF_CORE_SOURCES harness/plan/plan.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/plan_test.cpp)
