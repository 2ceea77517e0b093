# Fingerprint: pure parsers, doctor and comparison in the core; the host/toolchain probe is an edge.
list(APPEND NF_CORE_SOURCES
  harness/fingerprint/parse.cpp
  harness/fingerprint/doctor.cpp
  harness/fingerprint/compare.cpp)
list(APPEND NF_IO_SOURCES harness/fingerprint/host.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/fingerprint_parse_test.cpp
  tests/unit/fingerprint_doctor_test.cpp
  tests/unit/fingerprint_compare_test.cpp)
list(APPEND NF_IO_TESTS tests/integration/fingerprint_host_test.cpp)
