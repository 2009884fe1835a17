// Raw HTTP exchanges on 127.0.0.1, for requests a well-behaved client library would not send
// (half-sent, garbage, no Content-Length) and for several requests on one connection.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

namespace yolo::testing {

// Sends each of `requests` on one fresh connection, each after the previous answer, and returns
// the answers: a complete response (headers and Content-Length bytes of body), or whatever came
// before the server closed or `timeout_s` passed (then the exchange stops).
inline std::vector<std::string> raw_exchanges(int port, const std::vector<std::string>& requests,
                                              int timeout_s = 10) {
  std::vector<std::string> replies;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return replies;
  timeval timeout{timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::regex length_header("\r\nContent-Length: (\\d+)\r\n", std::regex::icase);
    std::string pending;  // bytes received past the previous response
    for (const std::string& bytes : requests) {
      ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      std::string reply = std::move(pending);
      pending.clear();
      bool complete = false;
      char buf[4096];
      for (;;) {
        const auto end = reply.find("\r\n\r\n");
        std::smatch m;
        if (end != std::string::npos) {
          const std::string head = reply.substr(0, end + 2);
          const size_t body = std::regex_search(head, m, length_header) ? std::stoul(m[1]) : 0;
          if (reply.size() >= end + 4 + body) {
            pending = reply.substr(end + 4 + body);
            reply.resize(end + 4 + body);
            complete = true;
            break;
          }
        }
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        reply.append(buf, static_cast<size_t>(n));
      }
      replies.push_back(reply);
      if (!complete) break;
    }
  }
  ::close(fd);
  return replies;
}

// A client connection held open by the test (say, to abandon a request half-way); closed when
// it goes out of scope or by close().
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) close();
  }
  ~RawConnection() { close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }
  bool send(const std::string& bytes) const {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  // What the server sends until it closes the connection or `timeout_s` passes.
  std::string receive(int timeout_s) const {
    std::string reply;
    if (fd_ < 0) return reply;
    timeval timeout{timeout_s, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<size_t>(n));
    }
    return reply;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// One request on a fresh connection.
inline std::string raw_exchange(int port, const std::string& bytes, int timeout_s = 10) {
  const std::vector<std::string> r = raw_exchanges(port, {bytes}, timeout_s);
  return r.empty() ? std::string() : r.front();
}

}  // namespace yolo::testing
