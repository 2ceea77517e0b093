list(APPEND NF_IO_SOURCES harness/process/process.cpp)
