# pipeline/: one function per command, composing the stages. I/O edge, but for run_record (pure:
# the run's result built from what a session measured), which the unit tests link.
list(APPEND NF_IO_SOURCES harness/pipeline/run.cpp harness/pipeline/experiment.cpp harness/pipeline/resume.cpp
     harness/pipeline/room.cpp harness/pipeline/fleet.cpp harness/pipeline/read.cpp harness/pipeline/errata.cpp
     harness/pipeline/machine.cpp harness/pipeline/history.cpp harness/pipeline/gate.cpp harness/pipeline/build.cpp
     harness/pipeline/store.cpp)
list(APPEND NF_CORE_SOURCES harness/pipeline/run_record.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/pipeline_run_record_test.cpp)
