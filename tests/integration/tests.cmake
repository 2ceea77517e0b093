# End-to-end tests: the real binary, real processes, real Docker engine (bash drives them).
foreach(t e2e_benchstat e2e_suites e2e_run e2e_config e2e_inputs e2e_signals e2e_leaks e2e_faults e2e_resume e2e_paired e2e_docker e2e_hostile e2e_matrix e2e_fleet e2e_browser e2e_history e2e_claims e2e_newcomer e2e_readme e2e_gate e2e_gate_host e2e_counters e2e_sweep e2e_errata e2e_podman)
  add_test(NAME ${t} COMMAND ${NF_WITH_ENGINE} bash ${CMAKE_SOURCE_DIR}/tests/integration/${t}_test.sh)
  set_tests_properties(${t} PROPERTIES LABELS integration TIMEOUT 600 SKIP_RETURN_CODE 77
                       ENVIRONMENT "NF=$<TARGET_FILE:noisefloor>;BURN=$<TARGET_FILE:nf-burn>")
endforeach()

# Kill trials (scripts/soak.sh): 10 random experiments, each stopped by a random signal at a
# random moment; the seed is printed, to replay a trial.
add_test(NAME soak COMMAND ${NF_WITH_ENGINE} bash ${CMAKE_SOURCE_DIR}/scripts/soak.sh 10)
set_tests_properties(soak PROPERTIES LABELS integration TIMEOUT 900 SKIP_RETURN_CODE 77
                     ENVIRONMENT "NF=$<TARGET_FILE:noisefloor>")

# The tests that start containers on the engine DOCKER_HOST names, one engine each.
set_tests_properties(e2e_suites e2e_docker e2e_hostile e2e_matrix e2e_fleet e2e_newcomer e2e_readme e2e_gate
                     e2e_gate_host e2e_counters e2e_sweep e2e_faults soak PROPERTIES RESOURCE_GROUPS engines:1)
# The tests that measure the room (shares of a CPU, waits, spinners on every CPU, timings against
# their own baselines) hold it one at a time: beside each runs at most one light test (the unit
# tests, the parsers, the checks of the tree), which is what they are built to tolerate — one busy
# process per CPU — while two of them side by side would load 2 CPUs with 4 to 6 busy tasks.
# `fleet` also guards the sshd and extra engines of fleet_lib.sh, `podman` Podman's one service.
set_tests_properties(e2e_suites e2e_run e2e_signals e2e_leaks e2e_faults e2e_resume e2e_paired e2e_docker
                     e2e_matrix e2e_newcomer e2e_readme e2e_gate e2e_counters e2e_sweep soak
                     PROPERTIES RESOURCE_LOCK room)
set_tests_properties(e2e_fleet e2e_gate_host PROPERTIES RESOURCE_LOCK "room;fleet")
set_tests_properties(e2e_podman PROPERTIES RESOURCE_LOCK "room;podman")

# Tests whose time goes to waiting, building and analysing at -O0 more than to code only they
# reach: CI leaves them out of its second, sanitized pass (`make test SANITIZE=1 CTEST_ARGS="-LE
# waiting"`, .ci/run). e2e_podman drives the same client as e2e_docker, against the other engine;
# e2e_counters' counters are read by the static probe, which is not sanitized; e2e_readme,
# e2e_newcomer and e2e_sweep run commands the other tests run too (in the last sanitized pass:
# 90, 29 and 80 s at -O0).
set_tests_properties(e2e_gate e2e_fleet soak e2e_podman e2e_counters e2e_readme e2e_newcomer e2e_sweep
                     PROPERTIES LABELS "integration;waiting")
