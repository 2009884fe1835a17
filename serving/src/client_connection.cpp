#include "client_connection.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace yolo::http {
namespace {

// "address:port" of a socket address (IPv4 or IPv6), as httplib writes the request's.
std::optional<std::pair<std::string, int>> endpoint(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    if (!::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text)) return std::nullopt;
    return std::make_pair(std::string(text), static_cast<int>(ntohs(v4.sin_port)));
  }
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    if (!::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text)) return std::nullopt;
    return std::make_pair(std::string(text), static_cast<int>(ntohs(v6.sin6_port)));
  }
  return std::nullopt;
}

bool is_connection_of(int fd, const httplib::Request& req) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_storage local{}, peer{};
  socklen_t local_len = sizeof local, peer_len = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
    return false;  // a listening or unconnected socket
  }
  const auto l = endpoint(local), p = endpoint(peer);
  return l && p && l->second == req.local_port && p->second == req.remote_port &&
         l->first == req.local_addr && p->first == req.remote_addr;
}

}  // namespace

std::optional<ClientConnection> ClientConnection::of(const httplib::Request& req) {
  if (req.remote_port <= 0 || req.local_port <= 0) return std::nullopt;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    char* end = nullptr;
    const std::string name = entry.path().filename().string();
    const long fd = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0') continue;
    if (is_connection_of(static_cast<int>(fd), req)) return ClientConnection(static_cast<int>(fd));
  }
  return std::nullopt;
}

bool ClientConnection::gone() const {
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;  // nothing happened (or poll failed: assume present)
  if (p.revents & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP)) return true;
  // Readable: either the client's next request (pipelined) or the end of the stream.
  char byte = 0;
  return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace yolo::http
