list(APPEND NF_CORE_SOURCES harness/report/table.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/report_table_test.cpp)
