# End-to-end tests: the real binary, real processes, real Docker engine (bash drives them).
foreach(t e2e_benchstat e2e_suites e2e_run e2e_config e2e_inputs e2e_signals e2e_leaks e2e_faults e2e_resume e2e_paired e2e_docker e2e_hostile e2e_matrix e2e_fleet e2e_browser e2e_history e2e_claims e2e_newcomer e2e_readme e2e_gate e2e_gate_host e2e_counters e2e_sweep e2e_errata e2e_podman e2e_simulated e2e_store e2e_labels e2e_fleet_lease)
  add_test(NAME ${t} COMMAND ${NF_WITH_ENGINE} bash ${CMAKE_SOURCE_DIR}/tests/integration/${t}_test.sh)
  set_tests_properties(${t} PROPERTIES LABELS integration TIMEOUT 600 SKIP_RETURN_CODE 77
                       ENVIRONMENT "NF=$<TARGET_FILE:noisefloor>;BURN=$<TARGET_FILE:nf-burn>")
endforeach()

# Kill trials (scripts/soak.sh): 10 random experiments, each stopped by a random signal at a
# random moment; the seed is printed, to replay a trial.
add_test(NAME soak COMMAND ${NF_WITH_ENGINE} bash ${CMAKE_SOURCE_DIR}/scripts/soak.sh 10)
set_tests_properties(soak PROPERTIES LABELS integration TIMEOUT 900 SKIP_RETURN_CODE 77
                     ENVIRONMENT "NF=$<TARGET_FILE:noisefloor>")

# What a test takes of this machine, in tests/resources.json's terms:
#   - `engines`: a test that starts containers on the engine DOCKER_HOST names gets one engine to
#     itself (tests/integration/engine.sh points DOCKER_HOST at it), as noisefloor's lease wants;
#   - `room` (2 slots): a test that measures the room itself (shares of a CPU against a baseline it
#     took moments before, run-queue waits of a quiet side against a loaded one) takes both slots:
#     beside it runs at most one light test (the unit tests, the parsers, the checks of the tree),
#     which is what it is built to tolerate, one busy process per CPU. A test that loads the room
#     (spinners, containers, builds) but judges only what it knows whatever the room does (CPU time
#     of a workload of known cost, a sleep's length, exit statuses, what is left behind, intervals
#     that must cover a known ratio) takes one slot: two of those run side by side, never beside a
#     test that measures the room. The gates measure it too: a Go benchmark's wall time beside another
#     test that starts and stops spinners moves by half (an A/A floor of ±54% was measured so), and
#     a gate then rightly calls a known 1.5x change inconclusive.
#   - locks: `fleet` guards the sshd and extra engines of fleet_lib.sh, `podman` Podman's service.
# e2e_fleet judges its spinners' share of CPU 1 against a busy process's share measured before the
# run: a measure of the room (CI at 6234ac2 failed it beside a test that loads the room: 0.1285 of
# CPU 1 against a bound of 0.15 x 0.882).
set(NF_MEASURES_ROOM e2e_suites e2e_sweep e2e_labels e2e_counters e2e_gate e2e_gate_host e2e_fleet)
# scale (tests/tests.cmake) keeps a CPU busy: at 2477a57, as a light test, it ran 13 s beside
# e2e_gate_host, which took 45.7 s against 33 to 34 s in the runs it did not.
# e2e_benchstat builds and runs `go test`, e2e_browser drives Chromium, e2e_claims burns CPU: beside a
# test that measures the room they are no light test (a review of ccea64e..d606853 found them in no
# list, free to run beside one). e2e_hostile builds an image: auto and runs pinned containers.
set(NF_LOADS_ROOM e2e_fleet_lease e2e_newcomer e2e_run e2e_signals e2e_leaks e2e_faults e2e_resume e2e_paired e2e_docker e2e_matrix
                  e2e_readme soak e2e_podman e2e_simulated e2e_store scale e2e_benchstat e2e_browser e2e_claims e2e_hostile)
set(NF_STARTS_CONTAINERS e2e_suites e2e_docker e2e_hostile e2e_matrix e2e_fleet e2e_fleet_lease e2e_newcomer e2e_readme
                         e2e_gate e2e_gate_host e2e_counters e2e_sweep e2e_faults soak)
foreach(t IN LISTS NF_MEASURES_ROOM NF_LOADS_ROOM NF_STARTS_CONTAINERS)
  set(group "")
  if(t IN_LIST NF_STARTS_CONTAINERS)
    list(APPEND group "engines:1")
  endif()
  if(t IN_LIST NF_MEASURES_ROOM)
    list(APPEND group "room:2")
  elseif(t IN_LIST NF_LOADS_ROOM)
    list(APPEND group "room:1")
  endif()
  list(JOIN group "," group)
  set_tests_properties(${t} PROPERTIES RESOURCE_GROUPS "${group}")
endforeach()
set_tests_properties(e2e_fleet e2e_fleet_lease e2e_gate_host PROPERTIES RESOURCE_LOCK fleet)
set_tests_properties(e2e_podman PROPERTIES RESOURCE_LOCK podman)

# Tests whose time goes to waiting, building and analysing at -O0 more than to code only they
# reach: CI leaves them out of its second, sanitized pass (`make test SANITIZE=1 CTEST_ARGS="-LE
# waiting"`, .ci/run). e2e_podman drives the same client as e2e_docker, against the other engine;
# e2e_counters' counters are read by the static probe, which is not sanitized; e2e_readme,
# e2e_newcomer and e2e_sweep run commands the other tests run too (in the last sanitized pass:
# 90, 29 and 80 s at -O0). e2e_store's time goes to 6400 publishes from 64 threads; its hostile
# archives meet the sanitizers in the io tests (store_archive_test.cpp).
set_tests_properties(e2e_gate e2e_fleet e2e_fleet_lease soak e2e_podman e2e_counters e2e_readme e2e_newcomer e2e_sweep e2e_store
                     PROPERTIES LABELS "integration;waiting")

# The order CTest starts them in, where it has no timings of its own (a fresh clone, CI): COST,
# highest first. The test programs' build first (tests/tests.cmake); beside it and then beside the
# light tests (lowest costs, so they wait for this), the tests that measure the room, one at a
# time; then the tests that load it, two at a time, longest first, so that no long one is left
# alone at the end. The lists follow what each took in a quiet run of the tests at c24bd5d:
# an order, not a figure any test asserts.
set(NF_ORDER build_test_programs
             e2e_gate e2e_gate_host e2e_fleet e2e_counters e2e_suites e2e_sweep e2e_labels  # room:2
             e2e_store e2e_podman e2e_docker soak e2e_simulated e2e_matrix e2e_readme e2e_fleet_lease scale e2e_newcomer e2e_faults
             e2e_browser e2e_paired e2e_signals e2e_benchstat e2e_claims e2e_resume e2e_run e2e_hostile e2e_leaks  # room:1
             io e2e_inputs e2e_errata format code_metrics unit e2e_history e2e_config)  # light
list(LENGTH NF_ORDER n)
foreach(t IN LISTS NF_ORDER)
  set_tests_properties(${t} PROPERTIES COST ${n})
  math(EXPR n "${n} - 1")
endforeach()
