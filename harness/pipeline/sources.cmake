# pipeline/: one function per command, composing the stages. I/O edge.
list(APPEND NF_IO_SOURCES harness/pipeline/run.cpp harness/pipeline/fleet.cpp harness/pipeline/read.cpp harness/pipeline/machine.cpp
     harness/pipeline/history.cpp)
