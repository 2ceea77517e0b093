# records/: the typed records a run writes and every reader reads, with their JSON (ADL).
list(APPEND NF_CORE_SOURCES
  harness/records/sample.cpp
  harness/records/samples.cpp
  harness/records/run.cpp
  harness/records/fingerprint.cpp
  harness/records/result.cpp
  harness/records/fleet.cpp
  harness/records/build_marker.cpp
  harness/records/store.cpp
  harness/records/documents.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/records_test.cpp)
