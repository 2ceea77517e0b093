// Incremental demultiplexer for the engine's log stream (GET /containers/{id}/logs, Tty=false):
// frames of an 8-byte header [stream, 0, 0, 0, size as big-endian uint32] and `size` payload bytes.
// Bytes arrive in arbitrary pieces: a frame may be split across feeds, one feed may hold many.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace noisefloor::docker {

class LogDemuxer {
 public:
  // tty: the container has Tty=true, so the stream is raw bytes (stderr merged into stdout).
  explicit LogDemuxer(bool tty = false) : tty_(tty) {}

  // Appends stream 0 (stdin, written as stdout, like Go's stdcopy) and 1 to out(), 2 to err().
  // Throws DockerError on a header with another stream or non-zero padding, and once a stream-3
  // frame (an error the daemon hit while reading the log) is complete, with its text.
  void feed(std::string_view bytes);

  // Call after the last feed: throws DockerError if a frame was cut off.
  void finish() const;

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  std::string take_out() { return std::move(out_); }
  std::string take_err() { return std::move(err_); }

 private:
  bool tty_;
  unsigned char header_[8] = {};
  std::size_t header_size_ = 0;  // header bytes collected so far
  std::uint32_t remaining_ = 0;  // payload bytes still expected for the current frame
  unsigned char stream_ = 0;     // of the current frame
  std::string out_, err_, daemon_error_;
};

}  // namespace noisefloor::docker
