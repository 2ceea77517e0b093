# render/: every rendering (text, markdown, CSV, JSON exports, Go format, HTML/SVG) over typed
# analysis values. Pure.
list(APPEND NF_CORE_SOURCES
  harness/render/table.cpp
  harness/render/suite.cpp
  harness/render/fleet.cpp
  harness/render/paired.cpp
  harness/render/compare.cpp
  harness/render/judge.cpp
  harness/render/run.cpp
  harness/render/sweep_table.cpp
  harness/render/errata.cpp
  harness/render/json.cpp
  harness/render/export.cpp
  harness/render/svg.cpp
  harness/render/sweep_plot.cpp
  harness/render/html.cpp
  harness/render/fingerprint.cpp
  harness/render/history.cpp
  harness/render/gate.cpp
  harness/render/warnings.cpp
  harness/render/accounting.cpp
  harness/render/diagnosis.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/render_export_test.cpp
  tests/unit/render_json_test.cpp
  tests/unit/render_html_test.cpp
  tests/unit/render_sweep_plot_test.cpp
  tests/unit/render_judge_test.cpp
  tests/unit/render_fingerprint_test.cpp
  tests/unit/render_gate_test.cpp
  tests/unit/render_warnings_test.cpp)
