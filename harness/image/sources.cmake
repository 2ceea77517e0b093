list(APPEND NF_CORE_SOURCES harness/image/elf.cpp)
list(APPEND NF_IO_SOURCES harness/image/recipe.cpp ${CMAKE_BINARY_DIR}/generated/embedded.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/image_elf_test.cpp)

# nf-probe and nf-noop (probe/sources.cmake) and the recipe go into the binary (image/embedded.hpp), so
# `image: auto` needs no file next to noisefloor. The generated source names both by absolute path
# for .incbin and is recompiled when either changes.
set(NF_PROBE_PATH ${CMAKE_BINARY_DIR}/nf-probe)
set(NF_NOOP_PATH ${CMAKE_BINARY_DIR}/nf-noop)
set(NF_RECIPE_PATH ${CMAKE_SOURCE_DIR}/containers/auto/image.json)
configure_file(harness/image/embedded.cpp.in ${CMAKE_BINARY_DIR}/generated/embedded.cpp @ONLY)
# Outside the unity batches: a batch's object does not see a member's OBJECT_DEPENDS, so an edited
# probe would otherwise stay the old one inside noisefloor.
set_source_files_properties(${CMAKE_BINARY_DIR}/generated/embedded.cpp PROPERTIES
  OBJECT_DEPENDS "${NF_PROBE_PATH};${NF_NOOP_PATH};${NF_RECIPE_PATH}" SKIP_UNITY_BUILD_INCLUSION ON)
