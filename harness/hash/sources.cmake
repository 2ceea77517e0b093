list(APPEND NF_CORE_SOURCES harness/hash/sha256.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/hash_sha256_test.cpp)
