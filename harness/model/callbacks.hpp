// The two callbacks that cross every long-running stage. Plain types only.
#pragma once

#include <functional>
#include <string_view>

namespace noisefloor::model {

// True once the user asked to stop (SIGINT, SIGTERM, SIGHUP): long waits poll it and throw
// noisefloor::Interrupted. An empty function never cancels.
using Cancelled = std::function<bool()>;

// One complete line of a benchmark's stdout (without the newline), as it arrives.
using LineCallback = std::function<void(std::string_view line)>;

}  // namespace noisefloor::model
