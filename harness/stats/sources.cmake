# stats/: pure statistics (Boost.Math is header-only).
list(APPEND NF_CORE_SOURCES harness/stats/summary.cpp harness/stats/compare.cpp harness/stats/gate.cpp
  harness/stats/association.cpp harness/stats/change_points.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/stats_summary_test.cpp tests/unit/stats_compare_test.cpp
  tests/unit/stats_gate_test.cpp tests/unit/stats_association_test.cpp tests/unit/stats_change_points_test.cpp)
# Compiled apart from the unity batches, so that adding it regroups none of the other tests.
