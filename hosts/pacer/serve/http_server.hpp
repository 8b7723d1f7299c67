#pragma once
// The daemon's HTTP/1.1 front (Boost.Beast): accepts connections, reads each request within
// [server] request_timeout_s, lets the Api refuse one from its header alone (a bad token, a body
// over the limit) before the body is read, hands complete requests to the Api and writes its
// responses. Every failure of a request gets a status and a one-line reason; a client that
// stalls gets 408 and is dropped. Keep-alive is honoured.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>

namespace spdlog { class logger; }

namespace pacer::host::serve {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using RequestHeader = http::request_header<>;
using Response = http::response<http::string_body>;
// Called exactly once per request, from any thread; a handler may answer later (long-poll).
using Respond = std::function<void(Response)>;

// What the server asks of the API.
class Handler {
 public:
  virtual ~Handler() = default;
  // A response that refuses the request from its header alone, or nothing to read the body.
  virtual std::optional<Response> check_header(const RequestHeader& header) = 0;
  virtual void handle(Request request, Respond respond) = 0;
  // A response for a request that could not be read (status + one-line reason).
  virtual Response error(http::status status, const std::string& reason) = 0;
  virtual void sent(unsigned status) = 0;  // for the metrics
};

struct ServerLimits {
  uint64_t max_body_bytes = 0;
  std::chrono::seconds request_timeout{30};
  size_t max_connections = 1024;
};

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, Handler& handler, ServerLimits limits, std::shared_ptr<spdlog::logger> log);
  ~HttpServer();
  // Binds "host:port" (port 0: any free one) and starts accepting; returns the port bound.
  // Throws InputError when the address cannot be bound.
  unsigned short listen(const std::string& host_port);
  void stop_accepting();
  size_t connections() const { return connections_->load(); }

 private:
  void accept();

  boost::asio::io_context& io_;
  Handler& handler_;
  ServerLimits limits_;
  std::shared_ptr<spdlog::logger> log_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on a strand: stop_accepting() comes from another thread
  // Shared with the connections, which may outlive the server by a moment at shutdown.
  std::shared_ptr<std::atomic<size_t>> connections_ = std::make_shared<std::atomic<size_t>>(0);
};

}  // namespace pacer::host::serve
