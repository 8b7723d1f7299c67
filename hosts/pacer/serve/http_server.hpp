#pragma once
// The daemon's HTTP/1.1 front (Boost.Beast): accepts connections, reads each request within
// [server] request_timeout_s, lets the Api refuse one from its header alone (a bad token, a body
// over the limit, a transfer-coding it cannot read) before the body is read, hands complete
// requests to the Api and writes its responses (the header alone for HEAD). Every failure of a
// request gets a status and a one-line reason; a client that stalls gets 408 and is dropped; a
// client that goes away while its answer is pending (a long-poll) frees its connection at once.
// Keep-alive is honoured. Each request leaves one access-log line.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http.hpp>

namespace spdlog { class logger; }

namespace pacer::host::serve {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using RequestHeader = http::request_header<>;
using Response = http::response<http::string_body>;
// Called exactly once per request, from any thread; a handler may answer later (long-poll).
using Respond = std::function<void(Response)>;
// A handler that answers later registers here what to do if the client goes away first (at most
// one callback; it runs on the connection's strand, or at once if the client is gone already).
using OnClientGone = std::function<void(std::function<void()>)>;

// What the server asks of the API.
class Handler {
 public:
  virtual ~Handler() = default;
  // A response that refuses the request from its header alone, or nothing to read the body.
  virtual std::optional<Response> check_header(const RequestHeader& header) = 0;
  virtual void handle(Request request, Respond respond, OnClientGone on_gone) = 0;
  // A response for a request that could not be read (status + one-line reason).
  virtual Response error(http::status status, const std::string& reason) = 0;
  virtual void sent(unsigned status) = 0;  // for the metrics
};

struct ServerLimits {
  uint64_t max_body_bytes = 0;
  std::chrono::seconds request_timeout{30};
  size_t max_connections = 1024;  // what the fd limit allows (fd_limits.hpp), not only [server]'s
  bool access_log = true;         // one info line per request; 5xx are logged as errors regardless
};

// The address "host:port" names (port 0: any free one). Throws InputError when it cannot be
// resolved.
boost::asio::ip::tcp::endpoint resolve_listen(boost::asio::io_context& io, const std::string& host_port);

// Open connections, shared with the connections (which may outlive the server by a moment).
class ConnectionCount {
 public:
  void add() { n_.fetch_add(1); }
  void remove() { n_.fetch_sub(1); }
  size_t now() const { return n_.load(); }

 private:
  std::atomic<size_t> n_{0};
};

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, Handler& handler, ServerLimits limits, std::shared_ptr<spdlog::logger> log);
  ~HttpServer();
  // Binds the endpoint and starts accepting; returns the port bound. Throws InputError when the
  // address cannot be bound; `host_port` names it in the message.
  unsigned short listen(const boost::asio::ip::tcp::endpoint& endpoint, const std::string& host_port);
  void stop_accepting();
  size_t connections() const { return connections_->now(); }

 private:
  void accept();
  void accept_failed(const boost::system::error_code& ec);
  void refuse(boost::asio::ip::tcp::socket socket);
  // At most one warning a second (an attack must not flood the log); the ones held back are counted.
  void warn_now_and_then(const std::function<std::string()>& what);

  boost::asio::io_context& io_;
  Handler& handler_;
  ServerLimits limits_;
  std::shared_ptr<spdlog::logger> log_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on a strand: stop_accepting() comes from another thread
  boost::asio::steady_timer accept_retry_;   // the same strand
  std::chrono::milliseconds accept_backoff_{0};
  // Warnings about refused connections and failed accepts, at most one a second (the rest counted).
  std::chrono::steady_clock::time_point last_warning_{};
  size_t warnings_held_ = 0;
  std::shared_ptr<ConnectionCount> connections_ = std::make_shared<ConnectionCount>();
};

}  // namespace pacer::host::serve
