#!/usr/bin/env bash
# engine.sh COMMAND...: runs a test with DOCKER_HOST set to the Docker engine CTest gave it.
#
# `make test` runs the tests side by side (ctest -j) with two engines (tests/resources.json: the
# default one and a second, both started by `make engines`): a test that runs containers asks for
# one (RESOURCE_GROUPS engines:1, tests/tests.cmake), CTest hands each engine to one test at a
# time and says which in CTEST_RESOURCE_GROUP_0_ENGINES ("id:second,slots:1"). Every engine
# keeps noisefloor's rule of one experiment at a time, and a test's checks of "no container
# left" only see its own engine. Run without a resource file (plain `ctest`), DOCKER_HOST is left
# as it is.
#
# Each test runs in a session of its own, as a separate job would: where the kernel shares a CPU
# between sessions first (autogroup), two tests side by side then each get their half whatever
# the other runs, and a busy job beside `make test` takes its share from both alike, not from
# whichever test starts more processes.
set -euo pipefail
case "${CTEST_RESOURCE_GROUP_0_ENGINES:-}" in
  id:default,*) ;;
  id:*,*)
    id=${CTEST_RESOURCE_GROUP_0_ENGINES#id:}
    export DOCKER_HOST="unix:///run/nf-engines/${id%%,*}.sock"
    ;;
esac
exec setsid --wait "$@"
