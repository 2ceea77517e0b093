list(APPEND NF_CORE_SOURCES harness/probe/probe_report.cpp)
list(APPEND NF_UNIT_TESTS tests/unit/probe_report_test.cpp)

# The auto image's entrypoint: static (the image may hold no libc) and independent of the core.
add_executable(nf-probe harness/probe/nf_probe.cpp)
target_link_options(nf-probe PRIVATE -static)
include(GNUInstallDirs)
install(TARGETS nf-probe RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/noisefloor)
