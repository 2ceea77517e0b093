// The engine's log stream demultiplexer. Besides surviving any bytes, it must not depend on how
// they arrive: fed whole or in pieces (cut where the input's first bytes say), the result — the
// two streams, or the error — is the same.
#include "docker/demux.hpp"

#include <cstdlib>
#include <string>

#include "fuzz.hpp"

namespace {

struct Outcome {
  std::string out, err, error;
  bool operator==(const Outcome&) const = default;
};

template <class Feed>
Outcome run_demuxer(bool tty, Feed feed) {
  noisefloor::docker::LogDemuxer d(tty);
  Outcome o;
  try {
    feed(d);
    d.finish();
  } catch (const noisefloor::Error& e) {
    o.error = e.what();
  }
  o.out = d.out();
  o.err = d.err();
  return o;
}

}  // namespace

int noisefloor::fuzz::demux(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const bool tty = data[0] & 1;
  const std::size_t piece = 1 + data[1] % 16;  // bytes per feed
  const std::string_view bytes = noisefloor::fuzz::as_text(data + 2, size - 2);
  const Outcome whole = run_demuxer(tty, [&](auto& d) { d.feed(bytes); });
  const Outcome pieces = run_demuxer(tty, [&](auto& d) {
    for (std::size_t at = 0; at < bytes.size(); at += piece) d.feed(bytes.substr(at, piece));
  });
  // Once an error is thrown the pieces stop early, so only the error must agree then.
  if (whole.error != pieces.error || (whole.error.empty() && !(whole == pieces))) std::abort();
  return 0;
}
