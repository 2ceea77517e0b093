# analysis/: tables, paired and unpaired comparisons, labels, rooms and the anchor, over typed
# records. Pure.
list(APPEND NF_CORE_SOURCES
  harness/analysis/table.cpp
  harness/analysis/suite.cpp
  harness/analysis/verdict.cpp
  harness/analysis/accounting.cpp
  harness/analysis/diagnosis.cpp
  harness/analysis/labels.cpp
  harness/analysis/paired.cpp
  harness/analysis/gate.cpp
  harness/analysis/rooms.cpp
  harness/analysis/compare.cpp
  harness/analysis/anchor.cpp
  harness/analysis/judge.cpp
  harness/analysis/history.cpp
  harness/analysis/sweep.cpp
  harness/analysis/errata.cpp
  harness/analysis/analysis.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/analysis_table_test.cpp
  tests/unit/analysis_accounting_test.cpp
  tests/unit/analysis_diagnosis_test.cpp
  tests/unit/analysis_paired_test.cpp
  tests/unit/analysis_compare_test.cpp
  tests/unit/analysis_rooms_test.cpp
  tests/unit/analysis_judge_test.cpp
  tests/unit/analysis_history_test.cpp
  tests/unit/analysis_gotest_test.cpp
  tests/unit/analysis_test.cpp
  tests/unit/analysis_gate_test.cpp
  tests/unit/analysis_sweep_test.cpp
  tests/unit/analysis_errata_test.cpp)
# Compiled apart from the unity batches, so that adding it regroups none of the other tests.
