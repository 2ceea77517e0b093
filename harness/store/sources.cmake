# store/: published runs from many machines (README: Crowd replays). The machine digest, the keys
# and the pages are pure; the archive (zlib), the database (SOCI), the upload's checks, the server
# (cpp-httplib, its own binary) and the publishing client (libcurl) are edges.
list(APPEND NF_CORE_SOURCES harness/store/machine.cpp harness/store/keys.cpp harness/store/page.cpp)
list(APPEND NF_IO_SOURCES harness/store/archive.cpp harness/store/database.cpp harness/store/upload.cpp
     harness/store/client.cpp)
# The HTTP server, in noisefloor-server only (CMakeLists.txt says why).
set(NF_SERVER_SOURCES harness/store/server.cpp harness/store/http_server.cpp harness/pipeline/serve_here.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/store_test.cpp)
list(APPEND NF_IO_TESTS tests/integration/store_archive_test.cpp tests/integration/http_server_test.cpp
     tests/integration/store_database_test.cpp)
# The server's listener, tested in the io tests with the library it is built on.
set(NF_IO_TEST_SERVER_SOURCES harness/store/http_server.cpp)
