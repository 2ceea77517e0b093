#include "docker/demux.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "docker/api.hpp"

namespace noisefloor::docker {

void LogDemuxer::feed(std::string_view bytes) {
  if (tty_) {
    out_.append(bytes);
    return;
  }
  while (!bytes.empty()) {
    if (remaining_ == 0 && header_size_ < 8) {
      const std::size_t n = std::min<std::size_t>(8 - header_size_, bytes.size());
      std::copy_n(bytes.begin(), n, header_ + header_size_);
      header_size_ += n;
      bytes.remove_prefix(n);
      if (header_size_ < 8) return;
      if (header_[0] > 3 || header_[1] != 0 || header_[2] != 0 || header_[3] != 0) {
        throw DockerError(fmt::format(
            "docker: bad log frame header {:02x} {:02x} {:02x} {:02x} {:02x} {:02x} {:02x} {:02x} "
            "(expected stream 0-3, three zero bytes and a size; is the container a TTY?)",
            header_[0], header_[1], header_[2], header_[3], header_[4], header_[5], header_[6], header_[7]));
      }
      stream_ = header_[0];
      remaining_ = (std::uint32_t{header_[4]} << 24) | (std::uint32_t{header_[5]} << 16) |
                   (std::uint32_t{header_[6]} << 8) | std::uint32_t{header_[7]};
      if (remaining_ == 0) {  // an empty frame: nothing to copy, next header
        header_size_ = 0;
        if (stream_ == 3) throw DockerError("docker: the engine reported an error reading the log");
        continue;
      }
    }
    const std::size_t n = std::min<std::size_t>(remaining_, bytes.size());
    std::string& target = stream_ == 2 ? err_ : stream_ == 3 ? daemon_error_ : out_;
    target.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    remaining_ -= static_cast<std::uint32_t>(n);
    if (remaining_ == 0) {
      header_size_ = 0;
      if (stream_ == 3) {
        std::string_view text = daemon_error_;
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
        throw DockerError(fmt::format("docker: the engine reported an error reading the log: {}", text));
      }
    }
  }
}

void LogDemuxer::finish() const {
  if (tty_) return;
  if (remaining_ != 0 || header_size_ != 0) {
    throw DockerError(
        fmt::format("docker: the log stream ended inside a frame ({} header bytes, {} payload bytes missing)",
                    header_size_ < 8 ? 8 - header_size_ : 0, remaining_));
  }
}

}  // namespace noisefloor::docker
