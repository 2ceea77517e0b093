list(APPEND NF_CORE_SOURCES harness/report/table.cpp harness/report/paired.cpp harness/report/compare.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/report_table_test.cpp tests/unit/report_paired_test.cpp tests/unit/report_compare_test.cpp)
