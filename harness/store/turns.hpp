// Turns: at most `width` holders at once, the others served in the order they came (a finished
// turn is handed to the next in line, never taken by a late arrival). The store's server gives
// publishes their costly part (unpacking, loading, recomputing, storing) in turns, one more than
// the machine has CPUs: 32 publishes sharing two CPUs each took as long as the slowest of them.
// Pure (the standard library's threads only).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

namespace noisefloor::store {

class Turns {
 public:
  explicit Turns(std::size_t width) : width_(std::max<std::size_t>(width, 1)) {}

  // A turn, held from construction to destruction (waiting in line first when all are taken).
  class Turn {
   public:
    explicit Turn(Turns& t) : t_(t) {
      std::unique_lock lock(t_.mutex_);
      if (t_.running_ < t_.width_ && t_.line_.empty()) {
        ++t_.running_;
        return;
      }
      Waiter me;
      t_.line_.push_back(&me);
      me.woken.wait(lock, [&] { return me.go; });
    }
    ~Turn() {
      const std::lock_guard lock(t_.mutex_);
      if (t_.line_.empty()) {
        --t_.running_;
        return;
      }
      Waiter* next = t_.line_.front();
      t_.line_.pop_front();
      next->go = true;
      next->woken.notify_one();
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

   private:
    Turns& t_;
  };

  // How many wait in line now.
  std::size_t waiting() {
    const std::lock_guard lock(mutex_);
    return line_.size();
  }

 private:
  struct Waiter {
    std::condition_variable woken;
    bool go = false;
  };
  std::size_t width_;
  std::mutex mutex_;
  std::deque<Waiter*> line_;
  std::size_t running_ = 0;
};

}  // namespace noisefloor::store
