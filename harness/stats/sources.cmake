# stats/: pure statistics (Boost.Math is header-only).
list(APPEND NF_CORE_SOURCES harness/stats/summary.cpp harness/stats/compare.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/stats_summary_test.cpp tests/unit/stats_compare_test.cpp)
