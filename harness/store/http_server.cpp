#include "store/http_server.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace noisefloor::store {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A connection's socket as the library reads and writes it, every wait bounded by the idle time
// and by the connection's deadline. Reads are buffered: the library reads a request's head one byte
// at a time.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, Clock::time_point deadline, milliseconds idle)
      : sock_(sock), deadline_(deadline), idle_(idle) {}

  bool is_readable() const override { return next_ < end_ || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* out, size_t size) override {
    if (next_ == end_) {
      if (!wait(POLLIN)) return -1;
      const ssize_t n = retried([&] { return ::recv(sock_, buffer_.data(), buffer_.size(), 0); });
      if (n <= 0) return n;
      next_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, end_ - next_);
    std::memcpy(out, buffer_.data() + next_, n);
    next_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* data, size_t size) override {
    if (!wait(POLLOUT)) return -1;
    return retried([&] { return ::send(sock_, data, size, MSG_NOSIGNAL); });
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(::getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  // Whether `events` came before the idle time or the deadline ran out.
  bool wait(short events) const {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline_ - Clock::now());
    const auto timeout = std::min(idle_, left);
    if (timeout.count() <= 0) return false;
    pollfd p{sock_, events, 0};
    int ready = 0;
    do ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    while (ready < 0 && errno == EINTR);
    return ready > 0;
  }

  template <class Call>
  static ssize_t retried(Call call) {
    ssize_t n = 0;
    do n = call();
    while (n < 0 && errno == EINTR);
    return n;
  }

  template <class Name>
  void address(Name name, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t length = sizeof(a);
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (name(sock_, reinterpret_cast<sockaddr*>(&a), &length) != 0 ||
        ::getnameinfo(reinterpret_cast<sockaddr*>(&a), length, host.data(), host.size(), service.data(),
                      service.size(), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
      return;
    ip = host.data();
    port = std::atoi(service.data());
  }

  int sock_;
  Clock::time_point deadline_;
  milliseconds idle_;
  std::array<char, 4096> buffer_{};
  std::size_t next_ = 0, end_ = 0;
};

}  // namespace

HttpServer::HttpServer(milliseconds deadline, milliseconds idle) : deadline_(deadline), idle_(idle) {
  set_socket_options([this](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listener_ = sock;
  });
}

int HttpServer::bind(const std::string& host, int port) {
  const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  if (bound >= 0 && listener_ >= 0 && ::listen(listener_, kBacklog) != 0) return -1;
  return bound;
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  DeadlineStream stream(sock, Clock::now() + deadline_, idle_);
  bool closed = false;
  const bool served = process_request(stream, true, closed, nullptr);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

}  // namespace noisefloor::store
