# conditions/: conditions in force. environment.hpp is the pure interface; host and container
# put the conditions in place (processes, the Docker engine).
list(APPEND NF_IO_SOURCES harness/conditions/host.cpp harness/conditions/container.cpp)
