list(APPEND NF_CORE_SOURCES harness/report/table.cpp harness/report/paired.cpp harness/report/compare.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/report_table_test.cpp tests/unit/report_paired_test.cpp tests/unit/report_compare_test.cpp)
list(APPEND NF_CORE_SOURCES harness/report/svg.cpp harness/report/report_data.cpp harness/report/html.cpp
     harness/report/export.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/report_html_test.cpp tests/unit/report_export_test.cpp)
