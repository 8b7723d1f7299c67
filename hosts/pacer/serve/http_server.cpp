#include "http_server.hpp"

#include <sys/socket.h>

#include <cerrno>

#include <algorithm>
#include <limits>
#include <vector>

#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "request.hpp"

namespace pacer::host::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

// A response must leave within this, or the client is taken for gone.
constexpr std::chrono::seconds kWriteTimeout{30};
// What is read and dropped after a refused request before the socket closes (drain_and_close).
constexpr size_t kDrainBytes = size_t(8) << 20;
// Accepting again after the system had no descriptor for a connection: first wait, longest wait.
constexpr std::chrono::milliseconds kFirstAcceptBackoff{10}, kLastAcceptBackoff{1000};

using Clock = std::chrono::steady_clock;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Handler& handler, const ServerLimits& limits, std::shared_ptr<ConnectionCount> count,
             std::shared_ptr<spdlog::logger> log)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), handler_(handler), limits_(limits),
        count_(std::move(count)), log_(std::move(log)) {
    count_->add();
    error_code ec;
    const auto peer = socket_.remote_endpoint(ec);
    peer_ = ec ? "-" : fmt::format("{}:{}", peer.address().to_string(), peer.port());
  }
  ~Connection() { release_slot(); }

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
    method_ = "-";
    target_ = "-";
    arm(limits_.request_timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](const error_code& ec, size_t) { self->on_header(ec); });
  }

  void on_header(const error_code& ec) {
    started_ = Clock::now();
    if (ec) return read_failed(ec, /*started=*/buffer_.size() > 0 || parser_->got_some());
    const RequestHeader& header = parser_->get().base();
    method_ = printable(std::string_view(header.method_string().data(), header.method_string().size()), 24);
    target_ = printable(std::string_view(header.target().data(), header.target().size()), 200);
    head_ = header.method() == http::verb::head;
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
    awaiting_ = true;
    auto self = shared_from_this();
    handler_.handle(
        std::move(request),
        [self](Response response) {
          // The handler may answer from another thread (a long-poll woken by an engine thread).
          asio::post(self->socket_.get_executor(), [self, response = std::move(response)]() mutable {
            self->awaiting_ = false;
            self->on_gone_ = nullptr;
            if (self->watching_) {
              error_code ignored;
              self->socket_.cancel(ignored);  // the watch ends (operation_aborted); the write is not yet started
            }
            self->write(std::move(response), self->keep_alive_);
          });
        },
        [weak = weak_from_this()](std::function<void()> on_gone) {
          auto self = weak.lock();
          if (!self) return on_gone();
          asio::post(self->socket_.get_executor(), [self, on_gone = std::move(on_gone)]() mutable {
            if (self->gone_) return on_gone();
            if (self->awaiting_) self->on_gone_ = std::move(on_gone);
          });
        });
    // Still no answer once the handler has returned (a long-poll): watch for the client leaving.
    asio::post(socket_.get_executor(), [self] {
      if (self->awaiting_) self->watch();
    });
  }

  // Waits for the socket to turn readable while an answer is pending. Readable with nothing to
  // read means the client closed its end: it is gone, and so is the connection's slot. Bytes to
  // read (a pipelined request) stay where they are for the next read; the watch then ends.
  void watch() {
    if (watching_ || buffer_.size() > 0) return;  // a pipelined request is buffered already
    watching_ = true;
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](const error_code& ec) {
      self->watching_ = false;
      if (!self->awaiting_ || ec == asio::error::operation_aborted) return;
      // A peek that must not wait: Asio's own receive() would block this thread (and the strand)
      // until the client sends or closes, where readiness was only a wake-up.
      char byte;
      const ssize_t n = ec ? 0 : ::recv(self->socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0) return;  // a pipelined request: answered in turn
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return self->watch();
      self->gone_ = true;
      self->awaiting_ = false;
      if (auto on_gone = std::move(self->on_gone_)) on_gone();
      self->on_gone_ = nullptr;
      self->log_access(499, 0, "the client went away before the answer");
      self->close();
    });
  }

  void write(Response response, bool keep_alive) {
    if (gone_) return;  // closed when the client left; nobody reads this
    response.keep_alive(keep_alive);
    response.prepare_payload();
    const unsigned status = response.result_int();
    handler_.sent(status);
    response_ = std::move(response);
    serializer_.emplace(response_);
    arm(kWriteTimeout);
    auto done = [self = shared_from_this(), keep_alive, status](const error_code& ec, size_t) {
      self->disarm();
      self->log_access(status, ec ? 0 : (self->head_ ? 0 : self->response_.body().size()),
                       ec ? "not sent: " + ec.message() : "");
      if (ec) return self->close();
      if (!keep_alive) return self->drain_and_close();
      self->read_header();
    };
    // HEAD: the header of the answer GET would get, Content-Length included, and no body.
    if (head_) http::async_write_header(socket_, *serializer_, std::move(done));
    else http::async_write(socket_, *serializer_, std::move(done));
  }

  // One line per request: peer, method and target, status, body bytes sent, time since the header
  // arrived. A 5xx is an error of the daemon: always logged, with the reason its answer gave.
  void log_access(unsigned status, size_t bytes, const std::string& note) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
    if (status >= 500 && status < 600) {
      std::string_view reason = response_.body();  // {"error": "..."} and a newline
      while (!reason.empty() && reason.back() == '\n') reason.remove_suffix(1);
      log_->error("access: {} \"{} {}\" {} {} B {:.1f} ms: {}{}", peer_, method_, target_, status, bytes, ms,
                  printable(reason, 300), note.empty() ? "" : " (" + note + ")");
    } else if (limits_.access_log) {
      log_->info("access: {} \"{} {}\" {} {} B {:.1f} ms{}", peer_, method_, target_, status, bytes, ms,
                 note.empty() ? "" : " (" + note + ")");
    }
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
    release_slot();
  }
  // The slot counts open sockets, not live objects: a pending long-poll may hold this object for
  // a while after its socket is closed.
  void release_slot() {
    if (!slot_released_.exchange(true)) count_->remove();
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  Handler& handler_;
  const ServerLimits limits_;  // a copy: a connection may outlive the server by a moment at shutdown
  std::shared_ptr<ConnectionCount> count_;
  std::atomic<bool> slot_released_{false};
  std::shared_ptr<spdlog::logger> log_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  Response response_;
  std::optional<http::response_serializer<http::string_body>> serializer_;
  std::vector<char> scratch_;  // drain_and_close()
  size_t drain_left_ = 0;
  bool timed_out_ = false;
  bool keep_alive_ = true;
  bool head_ = false;
  // While the handler has not answered: whether the watch runs, whether the client left, and
  // what to tell the handler then.
  bool awaiting_ = false, watching_ = false, gone_ = false;
  std::function<void()> on_gone_;
  // For the access log.
  std::string peer_, method_ = "-", target_ = "-";
  Clock::time_point started_ = Clock::now();
};

}  // namespace

HttpServer::HttpServer(asio::io_context& io, Handler& handler, ServerLimits limits, std::shared_ptr<spdlog::logger> log)
    : io_(io), handler_(handler), limits_(limits), log_(std::move(log)), acceptor_(asio::make_strand(io)),
      accept_retry_(acceptor_.get_executor()) {}

HttpServer::~HttpServer() {
  error_code ignored;
  acceptor_.close(ignored);  // the io threads have stopped by now
}

tcp::endpoint resolve_listen(asio::io_context& io, const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  error_code ec;
  tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty())
    throw InputError(fmt::format("cannot listen on \"{}\" ([server] listen, or --listen): cannot resolve {}: {}",
                                 printable(host_port), printable(host), ec.message()));
  return endpoints.begin()->endpoint();
}

unsigned short HttpServer::listen(const tcp::endpoint& endpoint, const std::string& host_port) {
  error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw InputError(fmt::format("cannot listen on \"{}\" ([server] listen, or --listen): {}", printable(host_port),
                                 ec.message()));
  accept();
  return acceptor_.local_endpoint().port();
}

void HttpServer::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) return accept_failed(ec);
    accept_backoff_ = std::chrono::milliseconds(0);
    if (connections_->now() >= limits_.max_connections) refuse(std::move(socket));
    else std::make_shared<Connection>(std::move(socket), handler_, limits_, connections_, log_)->start();
    accept();
  });
}

// No descriptor for the connection (EMFILE, ENFILE), or no memory for it: the connection stays in
// the backlog, so accepting again at once fails at once, at 100 % CPU. Wait, doubling the wait up
// to a second, while the connections open now end and give their descriptors back.
void HttpServer::accept_failed(const error_code& ec) {
  accept_backoff_ = std::clamp(accept_backoff_ * 2, kFirstAcceptBackoff, kLastAcceptBackoff);
  warn_now_and_then([&] {
    return fmt::format("accept failed: {}; accepting again in {} ms ({} open connections; see the fd limit in "
                       "docs/daemon.md)",
                       ec.message(), accept_backoff_.count(), connections_->now());
  });
  accept_retry_.expires_after(accept_backoff_);
  accept_retry_.async_wait([this](const error_code& wait_ec) {
    if (wait_ec || !acceptor_.is_open()) return;
    accept();
  });
}

void HttpServer::refuse(tcp::socket socket) {
  error_code ignored;
  warn_now_and_then([&] {
    return fmt::format("refused a connection from {}: {} open already ([server] max_connections, or the fd limit)",
                       socket.remote_endpoint(ignored).address().to_string(), limits_.max_connections);
  });
  socket.close(ignored);
}

void HttpServer::warn_now_and_then(const std::function<std::string()>& what) {
  const auto now = Clock::now();
  if (now - last_warning_ < std::chrono::seconds(1)) {
    ++warnings_held_;
    return;
  }
  log_->warn("{}{}", what(), warnings_held_ ? fmt::format(" ({} more warnings held back)", warnings_held_) : "");
  last_warning_ = now;
  warnings_held_ = 0;
}

void HttpServer::stop_accepting() {
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    accept_retry_.cancel();
    acceptor_.close(ignored);
  });
}

}  // namespace pacer::host::serve
