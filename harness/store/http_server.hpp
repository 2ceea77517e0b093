// The store's HTTP server: cpp-httplib's, with a listening socket and connections of its own.
// I/O edge (noisefloor-server only).
//
//  - It binds with SO_REUSEADDR only: the library's own options add SO_REUSEPORT, which lets a
//    second server bind the same port and take half the requests.
//  - It listens with a backlog of kBacklog: the library's is 5, fixed when Debian compiled it, and
//    64 publishers connecting at once overflowed it (connections reset).
//  - A connection serves one request, and within a deadline from its accept to its answer's last
//    byte: a client that drips a byte every few seconds is cut off when the deadline passes, so it
//    holds one of the threads that long at most (the library's read timeout resets on every byte).
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace noisefloor::store {

class HttpServer : public httplib::Server {
 public:
  static constexpr int kBacklog = 1024;  // connections the kernel holds before one is accepted

  // `deadline`: the most one connection may take; `idle`: the longest silence within it.
  HttpServer(std::chrono::milliseconds deadline, std::chrono::milliseconds idle);

  // Binds HOST:PORT (port 0: any free one) and listens: the port, or -1 when it cannot be bound.
  int bind(const std::string& host, int port);

 private:
  bool process_and_close_socket(socket_t sock) override;

  std::chrono::milliseconds deadline_;
  std::chrono::milliseconds idle_;
  int listener_ = -1;
};

}  // namespace noisefloor::store
