// store/http_server: the listening socket and the connections of `noisefloor serve`, on real sockets
// of this machine. Each case judges what the server does against what the client could have done
// (a second bind, a hundred handshakes, a request dripped for forty times the deadline), not
// against a duration.
#include "store/http_server.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace noisefloor::store {
namespace {

using namespace std::chrono_literals;

// A socket connected to 127.0.0.1:port, or -1; `wait`: whether to wait for the handshake.
int connect_to(int port, bool wait = true) {
  const int sock = ::socket(AF_INET, SOCK_STREAM | (wait ? 0 : SOCK_NONBLOCK), 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int rc = ::connect(sock, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  if (rc != 0 && !(!wait && errno == EINPROGRESS)) {
    ::close(sock);
    return -1;
  }
  return sock;
}

// A server on 127.0.0.1 (any port) answering GET /peer with the client's address and POST /size
// with the size of the body it read; listening on a thread of its own until destroyed.
struct Served {
  explicit Served(std::chrono::milliseconds deadline, std::chrono::milliseconds idle = 10s)
      : server(deadline, idle) {
    server.Get("/peer", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.remote_addr, "text/plain");
    });
    server.Post("/size",
                [](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& read) {
                  std::size_t size = 0;
                  read([&size](const char*, std::size_t n) {
                    size += n;
                    return true;
                  });
                  res.set_content(std::to_string(size), "text/plain");
                });
    port = server.bind("127.0.0.1", 0);
    REQUIRE(port > 0);
    listening = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~Served() {
    server.stop();
    listening.join();
  }
  HttpServer server;
  int port = -1;
  std::thread listening;
};

TEST_CASE("http server: a second server cannot bind the port the first one serves") {
  Served first(10s);
  HttpServer second(10s, 10s);
  CHECK(second.bind("127.0.0.1", first.port) == -1);
  httplib::Client client("127.0.0.1", first.port);
  const auto answer = client.Get("/peer");
  REQUIRE(answer);
  CHECK(answer->status == 200);
}

TEST_CASE("http server: a hundred connections arriving before any is accepted all complete") {
  // Bound and listening, but not accepting: every handshake waits in the listen backlog (the
  // library's own backlog of 5 would drop all but six of them).
  HttpServer server(10s, 10s);
  const int port = server.bind("127.0.0.1", 0);
  REQUIRE(port > 0);
  std::vector<pollfd> clients;
  for (int i = 0; i < 100; ++i) {
    const int sock = connect_to(port, false);
    REQUIRE(sock >= 0);
    clients.push_back({sock, POLLOUT, 0});
  }
  int connected = 0;
  const auto until = std::chrono::steady_clock::now() + 10s;  // for all of them: a bound, not a figure
  for (auto& c : clients) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (::poll(&c, 1, static_cast<int>(std::max<long>(left.count(), 0))) == 1) {
      int error = 0;
      socklen_t length = sizeof(error);
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
      connected += error == 0;
    }
    ::close(c.fd);
  }
  CHECK(connected == 100);
}

TEST_CASE("http server: a request is answered whole, with its client's address and body") {
  Served s(10s);
  httplib::Client client("127.0.0.1", s.port);
  const auto peer = client.Get("/peer");
  REQUIRE(peer);
  CHECK(peer->body == "127.0.0.1");
  CHECK(peer->get_header_value("Connection") == "close");  // one request a connection
  const std::string body(3 << 20, 'x');                    // far more than one read of the stream's buffer
  const auto size = client.Post("/size", body, "application/octet-stream");
  REQUIRE(size);
  CHECK(size->body == std::to_string(body.size()));
}

TEST_CASE("http server: a client that drips its request is cut off at the deadline, others are served") {
  Served s(500ms);
  const int sock = connect_to(s.port);
  REQUIRE(sock >= 0);
  const std::string head = "GET /peer HTTP/1.1\r\nHost: x\r\n";
  REQUIRE(::send(sock, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size()));
  // 400 bytes of one header, one every 50 ms: 20 s, forty times the deadline, each byte well within
  // the idle time.
  const std::string drip = "X-Slow: " + std::string(390, 'a') + "\r\n";
  std::size_t sent = 0;
  bool cut = false;
  for (; sent < drip.size() && !cut; ++sent) {
    if (::send(sock, drip.data() + sent, 1, MSG_NOSIGNAL) != 1) cut = true;
    pollfd p{sock, POLLIN, 0};
    char byte = 0;
    if (::poll(&p, 1, 50) == 1 && ::recv(sock, &byte, 1, MSG_DONTWAIT) <= 0) cut = true;
    if (sent == 4) {  // meanwhile, another client is served
      httplib::Client client("127.0.0.1", s.port);
      const auto answer = client.Get("/peer");
      REQUIRE(answer);
      CHECK(answer->status == 200);
    }
  }
  ::close(sock);
  CHECK(cut);
  CHECK(sent < drip.size() / 2);
}

}  // namespace
}  // namespace noisefloor::store
