list(APPEND NF_IO_SOURCES harness/files/files.cpp)
