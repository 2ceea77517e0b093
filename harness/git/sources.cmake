# git/: the git repository of a gate's sides (refs, the working tree's snapshot, worktrees, the
# build cache); every call to git is an argv through process::run. Edge.
list(APPEND NF_IO_SOURCES
  harness/git/cache.cpp
  harness/git/git.cpp)
list(APPEND NF_IO_TESTS
  tests/integration/git_test.cpp)
