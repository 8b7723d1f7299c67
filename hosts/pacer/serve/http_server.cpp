#include "http_server.hpp"

#include <limits>
#include <vector>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"

namespace pacer::host::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

constexpr size_t kMaxHeaderBytes = 16 * 1024;
// A response must leave within this, or the client is taken for gone.
constexpr std::chrono::seconds kWriteTimeout{30};
// What is read and dropped after a refused request before the socket closes (drain_and_close).
constexpr size_t kDrainBytes = size_t(8) << 20;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Handler& handler, const ServerLimits& limits,
             std::shared_ptr<std::atomic<size_t>> count, std::shared_ptr<spdlog::logger> log)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), handler_(handler), limits_(limits),
        count_(std::move(count)), log_(std::move(log)) {
    ++*count_;
  }
  ~Connection() { --*count_; }

  void start() { read_header(); }

 private:
  // Cancels the socket's operations when `timeout` passes first; they then end with an error and
  // timed_out_ says why.
  void arm(std::chrono::seconds timeout) {
    timed_out_ = false;
    timer_.expires_after(timeout);
    timer_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (ec) return;  // re-armed or disarmed
      self->timed_out_ = true;
      error_code ignored;
      self->socket_.cancel(ignored);
    });
  }
  void disarm() { timer_.cancel(); }

  void read_header() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    // Checked against [server] max_body_bytes once the header is in (not boost::none: Beast 1.74
    // compares a Content-Length with it as an optional, and any length exceeds an empty one).
    parser_->body_limit(std::numeric_limits<uint64_t>::max());
    arm(limits_.request_timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](const error_code& ec, size_t) { self->on_header(ec); });
  }

  void on_header(const error_code& ec) {
    if (ec) return read_failed(ec, /*started=*/buffer_.size() > 0 || parser_->got_some());
    const RequestHeader& header = parser_->get().base();
    if (auto refusal = handler_.check_header(header)) return write(std::move(*refusal), /*keep_alive=*/false);
    if (parser_->is_done()) return dispatch();
    parser_->body_limit(limits_.max_body_bytes);  // a chunked body is counted as it arrives
    if (const auto expect = header[http::field::expect]; beast::iequals(expect, "100-continue")) {
      // curl and others wait for this before sending a large body.
      continue_.emplace(http::status::continue_, header.version());
      return http::async_write(socket_, *continue_, [self = shared_from_this()](const error_code& ec, size_t) {
        if (ec) return self->close();
        self->read_body();
      });
    }
    read_body();
  }

  void read_body() {
    http::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](const error_code& ec, size_t) {
      if (ec) return self->read_failed(ec, true);
      self->dispatch();
    });
  }

  void read_failed(const error_code& ec, bool started) {
    disarm();
    if (ec == http::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::eof)
      return close();  // the client went away between requests (or mid-request): nobody to answer
    if (timed_out_) {
      if (!started) return close();  // an idle keep-alive connection
      return write(handler_.error(http::status::request_timeout,
                                  fmt::format("the request did not arrive whole within {} s ([server] request_timeout_s)",
                                              limits_.request_timeout.count())),
                   false);
    }
    if (ec == http::error::body_limit)
      return write(handler_.error(http::status::payload_too_large,
                                  fmt::format("the body is larger than the limit of {} bytes ([server] max_body_bytes)",
                                              limits_.max_body_bytes)),
                   false);
    if (ec == http::error::header_limit)
      return write(handler_.error(http::status::request_header_fields_too_large,
                                  fmt::format("the request header is larger than {} bytes", kMaxHeaderBytes)),
                   false);
    write(handler_.error(http::status::bad_request, fmt::format("malformed HTTP request: {}", ec.message())), false);
  }

  void dispatch() {
    disarm();
    Request request = parser_->release();
    keep_alive_ = request.keep_alive();
    auto self = shared_from_this();
    handler_.handle(std::move(request), [self](Response response) {
      // The handler may answer from another thread (a long-poll woken by an engine thread).
      asio::post(self->socket_.get_executor(), [self, response = std::move(response)]() mutable {
        self->write(std::move(response), self->keep_alive_);
      });
    });
  }

  void write(Response response, bool keep_alive) {
    response.keep_alive(keep_alive);
    response.prepare_payload();
    handler_.sent(static_cast<unsigned>(response.result_int()));
    response_ = std::move(response);
    arm(kWriteTimeout);
    http::async_write(socket_, response_, [self = shared_from_this(), keep_alive](const error_code& ec, size_t) {
      self->disarm();
      if (ec) return self->close();
      if (!keep_alive) return self->drain_and_close();
      self->read_header();
    });
  }

  // After refusing a request whose body was not read: closing a socket with unread input sends
  // a reset, which can destroy the answer before the client reads it. So stop sending, read and
  // drop what the client still sends (for a while, and a bounded amount), then close.
  void drain_and_close() {
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    arm(std::chrono::seconds(2));
    drain_left_ = kDrainBytes;
    drain();
  }
  void drain() {
    scratch_.resize(64 * 1024);
    socket_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](const error_code& ec, size_t n) {
      if (ec || n >= self->drain_left_) {
        self->disarm();
        return self->close();
      }
      self->drain_left_ -= n;
      self->drain();
    });
  }

  void close() {
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  Handler& handler_;
  const ServerLimits limits_;  // a copy: a connection may outlive the server by a moment at shutdown
  std::shared_ptr<std::atomic<size_t>> count_;
  std::shared_ptr<spdlog::logger> log_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  Response response_;
  std::vector<char> scratch_;  // drain_and_close()
  size_t drain_left_ = 0;
  bool timed_out_ = false;
  bool keep_alive_ = true;
};

}  // namespace

HttpServer::HttpServer(asio::io_context& io, Handler& handler, ServerLimits limits, std::shared_ptr<spdlog::logger> log)
    : io_(io), handler_(handler), limits_(limits), log_(std::move(log)), acceptor_(asio::make_strand(io)) {}

HttpServer::~HttpServer() {
  error_code ignored;
  acceptor_.close(ignored);  // the io threads have stopped by now
}

unsigned short HttpServer::listen(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  error_code ec;
  tcp::resolver resolver(io_);
  const auto endpoints = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty())
    throw InputError(fmt::format("[server] listen = \"{}\": cannot resolve {}: {}", host_port, host, ec.message()));
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw InputError(fmt::format("[server] listen = \"{}\": cannot listen there: {}", host_port, ec.message()));
  accept();
  return acceptor_.local_endpoint().port();
}

void HttpServer::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) {
      if (connections_->load() >= limits_.max_connections) {
        error_code ignored;
        log_->warn("refused a connection from {}: {} open already ([server] max_connections)",
                   socket.remote_endpoint(ignored).address().to_string(), limits_.max_connections);
        socket.close(ignored);
      } else {
        std::make_shared<Connection>(std::move(socket), handler_, limits_, connections_, log_)->start();
      }
    } else {
      log_->warn("accept failed: {}", ec.message());
    }
    accept();
  });
}

void HttpServer::stop_accepting() {
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
  });
}

}  // namespace pacer::host::serve
