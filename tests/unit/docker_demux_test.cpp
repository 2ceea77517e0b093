#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "docker/api.hpp"
#include "docker/demux.hpp"

using noisefloor::docker::DockerError;
using noisefloor::docker::LogDemuxer;

namespace {

std::string frame(unsigned char stream, const std::string& payload) {
  const auto n = static_cast<std::uint32_t>(payload.size());
  std::string h = {static_cast<char>(stream),
                   0,
                   0,
                   0,
                   static_cast<char>(n >> 24),
                   static_cast<char>((n >> 16) & 0xff),
                   static_cast<char>((n >> 8) & 0xff),
                   static_cast<char>(n & 0xff)};
  return h + payload;
}

// The verified bytes from the note: stderr first although written second.
const std::string kStream = frame(2, "err-line-1\n") + frame(1, "out-line-1\n") + frame(1, "") +
                            frame(0, "stdin-as-out\n") + frame(2, "e2");
const std::string kOut = "out-line-1\nstdin-as-out\n";
const std::string kErr = "err-line-1\ne2";

}  // namespace

TEST_CASE("demux: the verified header bytes") {
  CHECK(frame(2, "err-line-1\n").substr(0, 8) == std::string("\x02\0\0\0\0\0\0\x0b", 8));
}

TEST_CASE("demux: many frames in one chunk") {
  LogDemuxer d;
  d.feed(kStream);
  d.finish();
  CHECK(d.out() == kOut);
  CHECK(d.err() == kErr);
}

TEST_CASE("demux: frames split at every pair of byte boundaries") {
  for (std::size_t i = 0; i <= kStream.size(); ++i) {
    for (std::size_t j = i; j <= kStream.size(); ++j) {
      LogDemuxer d;
      d.feed(std::string_view(kStream).substr(0, i));
      d.feed(std::string_view(kStream).substr(i, j - i));
      d.feed(std::string_view(kStream).substr(j));
      d.finish();
      REQUIRE(d.out() == kOut);
      REQUIRE(d.err() == kErr);
    }
  }
}

TEST_CASE("demux: byte by byte, and a frame bigger than 64 KiB") {
  std::string big(70000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + i % 26);
  const std::string stream = frame(1, big) + frame(2, "tail\n") + frame(1, "!");
  CHECK(stream.substr(4, 4) == std::string("\x00\x01\x11\x70", 4));  // 70000 big-endian
  LogDemuxer d;
  for (char c : stream) d.feed(std::string_view(&c, 1));
  d.finish();
  CHECK(d.out() == big + "!");
  CHECK(d.err() == "tail\n");
  CHECK(d.take_out().size() == 70001);
}

TEST_CASE("demux: stream 3 is the daemon's error, at every split") {
  const std::string stream = frame(1, "ok\n") + frame(3, "error from daemon\n") + frame(1, "after\n");
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    LogDemuxer d;
    bool threw = false;
    try {
      d.feed(std::string_view(stream).substr(0, i));
      d.feed(std::string_view(stream).substr(i));
    } catch (const DockerError& e) {
      threw = true;
      REQUIRE(std::string(e.what()) ==
              "docker: the engine reported an error reading the log: error from daemon");
    }
    REQUIRE(threw);
    REQUIRE(d.out() == "ok\n");
  }
  LogDemuxer empty;
  CHECK_THROWS_WITH_AS(empty.feed(frame(3, "")), "docker: the engine reported an error reading the log",
                       DockerError);
}

TEST_CASE("demux: bad headers throw") {
  LogDemuxer bad_stream;
  CHECK_THROWS_WITH_AS(bad_stream.feed(std::string("\x05\0\0\0\0\0\0\x01x", 9)),
                       "docker: bad log frame header 05 00 00 00 00 00 00 01 (expected stream 0-3, "
                       "three zero bytes and a size; is the container a TTY?)",
                       DockerError);
  LogDemuxer bad_padding;
  bad_padding.feed(frame(1, "fine"));
  bad_padding.feed(std::string("\x01\0\x01", 3));
  CHECK_THROWS_WITH_AS(bad_padding.feed(std::string("\0\0\0\0\x02", 5)),
                       "docker: bad log frame header 01 00 01 00 00 00 00 02 (expected stream 0-3, "
                       "three zero bytes and a size; is the container a TTY?)",
                       DockerError);
  CHECK(bad_padding.out() == "fine");
  LogDemuxer tty_text;  // what a TTY container's raw log looks like to a demuxer
  CHECK_THROWS_AS(tty_text.feed("hello world\r\n"), DockerError);
}

TEST_CASE("demux: a stream cut inside a frame fails at finish") {
  LogDemuxer in_header;
  in_header.feed(kStream.substr(0, 3));
  CHECK_THROWS_WITH_AS(in_header.finish(),
                       "docker: the log stream ended inside a frame (5 header bytes, 0 payload bytes "
                       "missing)",
                       DockerError);
  LogDemuxer in_payload;
  in_payload.feed(kStream.substr(0, 10));
  CHECK_THROWS_WITH_AS(in_payload.finish(),
                       "docker: the log stream ended inside a frame (0 header bytes, 9 payload bytes "
                       "missing)",
                       DockerError);
  CHECK(in_payload.err() == "er");
  LogDemuxer nothing;
  CHECK_NOTHROW(nothing.finish());
  CHECK(nothing.out().empty());
}

TEST_CASE("demux: tty mode keeps raw bytes") {
  LogDemuxer d(true);
  d.feed("hello\r\n");
  d.feed(frame(2, "looks like a frame"));
  d.finish();
  CHECK(d.out() == "hello\r\n" + frame(2, "looks like a frame"));
  CHECK(d.err().empty());
}
