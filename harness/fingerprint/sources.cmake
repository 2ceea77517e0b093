# fingerprint/: the room. Facts, readers of system files, the doctor, engine facts and the
# tuning record are pure; the host/toolchain probes and the tuning (--apply/--restore) are edges.
list(APPEND NF_CORE_SOURCES
  harness/fingerprint/facts.cpp
  harness/fingerprint/parse.cpp
  harness/fingerprint/doctor.cpp
  harness/fingerprint/noise.cpp
  harness/fingerprint/engine.cpp
  harness/fingerprint/tuning.cpp)
list(APPEND NF_IO_SOURCES
  harness/fingerprint/host.cpp
  harness/fingerprint/noise_probe.cpp
  harness/fingerprint/remote.cpp
  harness/fingerprint/tune.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/fingerprint_parse_test.cpp
  tests/unit/fingerprint_doctor_test.cpp
  tests/unit/fingerprint_engine_test.cpp
  tests/unit/fingerprint_noise_test.cpp)
list(APPEND NF_IO_TESTS
  tests/integration/fingerprint_host_test.cpp
  tests/integration/fingerprint_tune_test.cpp)
