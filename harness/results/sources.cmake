list(APPEND NF_IO_SOURCES harness/results/results.cpp)
