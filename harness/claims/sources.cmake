# claims/: what an experiment says it demonstrates (`claims:`): the expression parser. Pure.
list(APPEND NF_CORE_SOURCES harness/claims/claim.cpp harness/claims/evaluate.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/claims_test.cpp)
