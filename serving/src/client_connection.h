// The server-side socket of the connection a request came on, found from the request's addresses,
// to tell whether its client has gone while a handler waits (a long-poll).
//
// cpp-httplib 0.11 (Debian 12's) gives a handler neither the socket nor a way to ask whether the
// client is still there (0.14 added Request::is_connection_closed), so a long-poll whose client
// disconnected kept its slot until its wait expired. The socket is the one descriptor of this
// process whose local and peer addresses are the request's; httplib keeps it open until the
// handler returns, so it cannot be closed and reused while the handler holds it. Linux only
// (/proc/self/fd); where it cannot be found, gone() is never true and waits end on time as before.
#pragma once

#include <optional>

namespace httplib {
struct Request;
}

namespace yolo::http {

class ClientConnection {
 public:
  // The request's connection, or nullopt where it cannot be identified.
  static std::optional<ClientConnection> of(const httplib::Request& req);

  // True once the client closed its side (or the connection failed). A client that pipelined
  // its next request is still there.
  bool gone() const;

 private:
  explicit ClientConnection(int fd) : fd_(fd) {}
  int fd_;  // not owned: httplib closes it after the handler returns
};

}  // namespace yolo::http
