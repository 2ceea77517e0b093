# Fingerprint: pure parsers, doctor, engine facts and comparison in the core; the host/toolchain
# probe and the tuning (--apply/--restore) are edges.
list(APPEND NF_CORE_SOURCES
  harness/fingerprint/parse.cpp
  harness/fingerprint/doctor.cpp
  harness/fingerprint/engine.cpp
  harness/fingerprint/compare.cpp)
list(APPEND NF_IO_SOURCES
  harness/fingerprint/host.cpp
  harness/fingerprint/tune.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/fingerprint_parse_test.cpp
  tests/unit/fingerprint_doctor_test.cpp
  tests/unit/fingerprint_compare_test.cpp
  tests/unit/fingerprint_engine_test.cpp
  tests/unit/fingerprint_render_test.cpp)
list(APPEND NF_IO_TESTS
  tests/integration/fingerprint_host_test.cpp
  tests/integration/fingerprint_tune_test.cpp)
