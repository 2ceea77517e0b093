// What noisefloor exits with, in one table: cli/main.cpp returns these numbers, `noisefloor --help`
// lists them under its commands and noisefloor(1) has them as its EXIT STATUS.
#pragma once

#include <array>
#include <string_view>

namespace noisefloor::model {

enum class ExitStatus : int {
  ok = 0,
  failed = 1,          // the run failed; doctor: the machine is not ready
  usage = 2,           // usage or configuration error, an unreadable input: nothing ran
  not_reproduced = 3,  // run --check, check: a claim NOT REPRODUCED
  regression = 4,      // run --base: the gate confirmed a regression
  interrupted = 130,   // SIGINT or SIGTERM
};

constexpr int code(ExitStatus s) { return static_cast<int>(s); }

struct ExitStatusMeaning {
  ExitStatus status;
  std::string_view meaning;
};

inline constexpr std::array<ExitStatusMeaning, 6> kExitStatuses{{
    {ExitStatus::ok, "the command completed"},
    {ExitStatus::failed,
     "the run failed (a benchmark failed, a container limit did not take effect, the engine failed); doctor: "
     "the machine is not ready"},
    {ExitStatus::usage,
     "usage or configuration error, or a path to read that is missing, damaged or not a result: nothing was "
     "run"},
    {ExitStatus::not_reproduced, "run --check, check: a claim is NOT REPRODUCED"},
    {ExitStatus::regression, "run --base (the gate): a regression is confirmed"},
    {ExitStatus::interrupted, "interrupted: the samples measured so far are kept, nothing is left running"},
}};

}  // namespace noisefloor::model
