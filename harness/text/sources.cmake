list(APPEND NF_CORE_SOURCES harness/text/text.cpp harness/text/units.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/text_test.cpp)
