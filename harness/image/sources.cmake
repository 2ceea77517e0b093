list(APPEND NF_CORE_SOURCES harness/image/elf.cpp)
list(APPEND NF_IO_SOURCES harness/image/recipe.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/image_elf_test.cpp)
