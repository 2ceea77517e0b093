# docker/: Docker Engine API client. endpoint/context/demux/api are pure; client/container/ssh_tunnel
# talk to the engine.
list(APPEND NF_CORE_SOURCES
  harness/docker/api.cpp
  harness/docker/context.cpp
  harness/docker/demux.cpp
  harness/docker/image_config.cpp
  harness/docker/endpoint.cpp)
list(APPEND NF_IO_SOURCES
  harness/docker/client.cpp
  harness/docker/container.cpp
  harness/docker/lease.cpp
  harness/docker/libcurl.cpp
  harness/docker/ssh_tunnel.cpp)
list(APPEND NF_UNIT_TESTS
  tests/unit/docker_api_test.cpp
  tests/unit/docker_context_test.cpp
  tests/unit/docker_demux_test.cpp
  tests/unit/docker_image_config_test.cpp
  tests/unit/docker_endpoint_test.cpp)
list(APPEND NF_IO_TESTS
  tests/integration/docker_client_test.cpp)
