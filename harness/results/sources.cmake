# results/: the on-disk schema. decode is pure; the directory and loading are edges.
list(APPEND NF_CORE_SOURCES harness/results/decode.cpp)
list(APPEND NF_IO_SOURCES harness/results/directory.cpp harness/results/load.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/results_test.cpp)
