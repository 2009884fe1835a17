// The MQTT publisher (yolo_mqtt) against a real mosquitto started by each test: delivery in
// order, a broker crash and restart mid-stream, overflow while the broker is away, TLS, user and
// password, a broker that never answers, a web server on its url, and the options it refuses. Its
// buffer and url parsing are also checked alone (its backoff is core's: test_backoff). Tests that
// need the broker skip when mosquitto is missing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <sstream>
#include <thread>

#include "free_port.h"
#include "mosquitto_test_broker.h"
#include "mqtt_outbox.h"
#include "mqtt_test_subscriber.h"
#include "mqtt_url.h"
#include "run_command.h"
#include "test_files.h"
#include "yolo/core/error.h"
#include "yolo/mqtt/mqtt_publisher.h"

using namespace std::chrono_literals;
using yolo::MqttConnectionState;
using yolo::MqttPublisher;
using yolo::MqttPublisherOptions;
using yolo::MqttPublisherStats;
using yolo::testing::MosquittoConfig;
using yolo::testing::MosquittoTestBroker;
using yolo::testing::MqttTestSubscriber;
using yolo::testing::TempDir;

#define SKIP_WITHOUT_MOSQUITTO()                                                               \
  if (yolo::testing::mosquitto_binary().empty())                                               \
  GTEST_SKIP() << "the mosquitto broker is not installed (apt-get install mosquitto "          \
                  "mosquitto-clients, as tools/install-deps.sh does); this test needs a real " \
                  "broker"

namespace {

// Short backoffs, so that reconnects happen within a test's time.
MqttPublisherOptions fast_options(const std::string& url) {
  MqttPublisherOptions o;
  o.url = url;
  o.reconnect.min = 50ms;
  o.reconnect.max = 400ms;
  o.connect_timeout = 3s;
  o.keepalive = 10s;
  return o;
}

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

std::string describe(const MqttPublisherStats& s) {
  std::ostringstream out;
  out << "state=" << yolo::to_string(s.state) << " enqueued=" << s.enqueued << " sent=" << s.sent
      << " resent=" << s.resent << " acknowledged=" << s.acknowledged
      << " delivered=" << s.delivered << " dropped=" << s.dropped
      << " dropped_too_big=" << s.dropped_too_big << " connections=" << s.connections
      << " reconnects=" << s.reconnects << " queued=" << s.queued_messages << "/" << s.queued_bytes
      << "B in_flight=" << s.in_flight << " last_error='" << s.last_error << "'";
  return out.str();
}

std::vector<int> as_numbers(const std::vector<std::string>& payloads) {
  std::vector<int> out;
  for (const auto& p : payloads) out.push_back(std::stoi(p));
  return out;
}

std::vector<int> range(int from, int to) {
  std::vector<int> out(static_cast<size_t>(to - from));
  std::iota(out.begin(), out.end(), from);
  return out;
}

void expect_balanced(const MqttPublisherStats& s) {
  EXPECT_EQ(s.enqueued, s.delivered + s.dropped + s.dropped_invalid + s.queued_messages)
      << describe(s);
}

// Every line the product logs (debug level included) while it lives. Made before and destroyed
// after the publishers it watches: the default logger must not change under a running thread.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto capture = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    capture->set_pattern("%l %v");
    auto console = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    console->set_level(spdlog::level::info);
    auto logger =
        std::make_shared<spdlog::logger>("capture", spdlog::sinks_init_list{capture, console});
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() {
    spdlog::default_logger()->flush();
    return text_.str();
  }
  // Lines at warning level or above that contain `needle`.
  int warnings_with(const std::string& needle) {
    std::istringstream lines(text());
    int n = 0;
    for (std::string line; std::getline(lines, line);)
      if ((line.rfind("warning", 0) == 0 || line.rfind("error", 0) == 0) &&
          line.find(needle) != std::string::npos)
        ++n;
    return n;
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

// Runs a command line the test needs (openssl, mosquitto_passwd); fails the test with its output.
void run_or_fail(const std::string& command) {
  const auto r = yolo::testing::run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.output;
}

// A test CA, a server certificate it signed for 127.0.0.1 and localhost, and an unrelated CA,
// made with the openssl command line in `dir` (EC keys: quick to generate).
struct TestCertificates {
  std::string ca, server_cert, server_key, other_ca;
};

TestCertificates make_certificates(const std::filesystem::path& dir) {
  const std::string d = dir.string();
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  run_or_fail("openssl req -x509 " + ec + " -keyout " + d + "/ca.key -out " + d +
              "/ca.crt -days 2 -subj '/CN=yolo test CA'");
  run_or_fail("openssl req " + ec + " -keyout " + d + "/server.key -out " + d +
              "/server.csr -subj '/CN=localhost'");
  yolo::testing::write_file(dir / "san.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run_or_fail("openssl x509 -req -in " + d + "/server.csr -CA " + d + "/ca.crt -CAkey " + d +
              "/ca.key -CAcreateserial -out " + d + "/server.crt -days 2 -extfile " + d +
              "/san.ext");
  run_or_fail("openssl req -x509 " + ec + " -keyout " + d + "/other.key -out " + d +
              "/other.crt -days 2 -subj '/CN=another CA'");
  return {d + "/ca.crt", d + "/server.crt", d + "/server.key", d + "/other.crt"};
}

MosquittoConfig tls_broker_config(const TestCertificates& certs) {
  MosquittoConfig config;
  config.ca_file = certs.ca;
  config.cert_file = certs.server_cert;
  config.key_file = certs.server_key;
  config.plain_listener = true;  // for the subscriber
  return config;
}

}  // namespace

// ---- the buffer, url parsing and backoff, alone -------------------------------------------------

namespace {

std::shared_ptr<const yolo::mqtt_detail::OutboxMessage> message(const std::string& payload,
                                                                int qos = 1) {
  return std::make_shared<const yolo::mqtt_detail::OutboxMessage>(
      yolo::mqtt_detail::OutboxMessage{"t", payload, qos});
}

}  // namespace

// Full by count or by bytes: the oldest go first; a message bigger than the whole buffer is
// refused without touching what is there.
TEST(MqttOutbox, DropsTheOldestWhenFull) {
  yolo::mqtt_detail::MqttOutbox box(3, 100);
  for (const char* p : {"a", "b", "c"}) EXPECT_EQ(box.push(message(p)).dropped_oldest, 0u);
  const auto outcome = box.push(message("d"));
  EXPECT_TRUE(outcome.accepted);
  EXPECT_EQ(outcome.dropped_oldest, 1u);
  EXPECT_EQ(box.next_unsent(10)->message->payload, "b");
  // 3 messages of 2 bytes held; one of 97 needs 96 bytes free beyond them: two go.
  EXPECT_EQ(box.push(message(std::string(96, 'x'))).dropped_oldest, 2u);
  EXPECT_EQ(box.messages(), 2u);
  EXPECT_EQ(box.bytes(), 2u + 97u);
  const auto too_big = box.push(message(std::string(100, 'x')));
  EXPECT_FALSE(too_big.accepted);
  EXPECT_EQ(box.messages(), 2u);
}

// In flight until acknowledged, within the window; after a lost connection everything
// unacknowledged comes out again, oldest first, marked as a resend; QoS 0 leaves when sent.
TEST(MqttOutbox, ResendsUnacknowledgedInOrder) {
  yolo::mqtt_detail::MqttOutbox box(100, 1000);
  for (int i = 0; i < 5; ++i) box.push(message(std::to_string(i)));
  box.push(message("q0", 0));
  for (int mid = 1; mid <= 2; ++mid) {
    auto item = box.next_unsent(2);
    ASSERT_TRUE(item);
    EXPECT_TRUE(box.mark_sent(item->seq, mid));
  }
  EXPECT_FALSE(box.next_unsent(2)) << "the window of 2 is full";
  EXPECT_EQ(box.in_flight(), 2u);
  EXPECT_TRUE(box.acknowledge(1));
  EXPECT_FALSE(box.acknowledge(1));
  auto third = box.next_unsent(2);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->message->payload, "2");
  box.mark_sent(third->seq, 3);
  box.restart();  // connection lost: "1" and "2" were not acknowledged
  EXPECT_EQ(box.in_flight(), 0u);
  std::vector<std::string> order;
  std::vector<bool> resend;
  for (int mid = 10; auto item = box.next_unsent(100); ++mid) {
    order.push_back(item->message->payload);
    resend.push_back(item->resend);
    box.mark_sent(item->seq, mid);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"1", "2", "3", "4", "q0"}));
  EXPECT_EQ(resend, (std::vector<bool>{true, true, false, false, false}));
  EXPECT_EQ(box.messages(), 4u) << "the QoS 0 message left when it was sent";
}

// A message dropped for room while in flight: its late PUBACK matches nothing, and the message
// handed out just before the drop is not mistaken for another.
TEST(MqttOutbox, DropWhileInFlight) {
  yolo::mqtt_detail::MqttOutbox box(2, 1000);
  box.push(message("a"));
  box.push(message("b"));
  auto a = box.next_unsent(10);
  box.mark_sent(a->seq, 7);
  auto b = box.next_unsent(10);
  box.push(message("c"));  // drops "a" (in flight)
  box.push(message("d"));  // drops "b" (handed out, not yet marked)
  EXPECT_FALSE(box.mark_sent(b->seq, 8));
  EXPECT_FALSE(box.acknowledge(7));
  EXPECT_EQ(box.in_flight(), 0u);
  EXPECT_EQ(box.next_unsent(10)->message->payload, "c");
}

TEST(MqttUrl, ParsesSchemesPortsAndIpv6) {
  using yolo::mqtt_detail::parse_broker_url;
  auto a = parse_broker_url("mqtt://broker.local");
  EXPECT_FALSE(a.tls);
  EXPECT_EQ(a.host, "broker.local");
  EXPECT_EQ(a.port, 1883);
  auto b = parse_broker_url("mqtts://10.0.0.5:18883/");
  EXPECT_TRUE(b.tls);
  EXPECT_EQ(b.port, 18883);
  EXPECT_EQ(parse_broker_url("mqtts://broker").port, 8883);
  auto c = parse_broker_url("mqtt://[::1]:1884");
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.display(), "mqtt://[::1]:1884");
  for (const char* bad : {"", "broker:1883", "tcp://broker", "mqtt://", "mqtt://:1883",
                          "mqtt://broker:", "mqtt://broker:0", "mqtt://broker:70000",
                          "mqtt://broker:12a", "mqtt://broker/topic", "mqtt://[::1"})
    EXPECT_THROW(parse_broker_url(bad), std::invalid_argument) << bad;
}

// ---- options ----------------------------------------------------------------------------------

namespace {

// The message of what `make` throws as E ("" and a test failure when it throws nothing or else).
template <class E, class F>
std::string thrown(F make) {
  try {
    make();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

}  // namespace

// Each bad option is refused at construction with a message naming it and what to do; a url
// with credentials is refused without repeating them.
TEST(MqttPublisherOptions, RefusesBadOptionsClearly) {
  TempDir dir("mqtt_options");
  auto with = [](auto change) {
    return [change] {
      MqttPublisherOptions o;
      o.url = "mqtt://127.0.0.1:1";
      change(o);
      MqttPublisher p(o);
    };
  };
  std::string m = thrown<std::invalid_argument>(with([](auto& o) { o.url = "http://127.0.0.1"; }));
  EXPECT_NE(m.find("'http'"), std::string::npos) << m;
  EXPECT_NE(m.find("mqtt://host[:port]"), std::string::npos) << m;
  EXPECT_NE(m.find("mqtts://host[:port]"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(
      with([](auto& o) { o.url = "mqtt://edge:Sup3rS3cretInUrl@broker:1883"; }));
  EXPECT_NE(m.find("username"), std::string::npos) << m;
  EXPECT_NE(m.find("password_file"), std::string::npos) << m;
  EXPECT_EQ(m.find("Sup3rS3cretInUrl"), std::string::npos) << m;
  EXPECT_EQ(m.find("edge"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(with([](auto& o) { o.url = ""; }));
  EXPECT_NE(m.find("empty"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(with([](auto& o) { o.qos = 2; }));
  EXPECT_NE(m.find("qos 2"), std::string::npos) << m;
  EXPECT_NE(m.find("use 0"), std::string::npos) << m;

  const std::string missing = (dir.path / "no-such-password").string();
  m = thrown<yolo::UsageError>(with([&](auto& o) {
    o.username = "edge";
    o.password_file = missing;
  }));
  EXPECT_NE(m.find("password_file '" + missing + "'"), std::string::npos) << m;

  yolo::testing::write_file(dir.path / "pw", "x\n");
  m = thrown<std::invalid_argument>(
      with([&](auto& o) { o.password_file = (dir.path / "pw").string(); }));
  EXPECT_NE(m.find("username is empty"), std::string::npos) << m;

  yolo::testing::write_file(dir.path / "empty-pw", "\n");
  m = thrown<yolo::UsageError>(with([&](auto& o) {
    o.username = "edge";
    o.password_file = (dir.path / "empty-pw").string();
  }));
  EXPECT_NE(m.find("is empty"), std::string::npos) << m;

  const std::string no_ca = (dir.path / "no-such-ca.pem").string();
  m = thrown<yolo::UsageError>(with([&](auto& o) {
    o.url = "mqtts://127.0.0.1:1";
    o.tls.ca_file = no_ca;
  }));
  EXPECT_NE(m.find("tls.ca_file '" + no_ca + "'"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(with([&](auto& o) { o.tls.ca_file = no_ca; }));
  EXPECT_NE(m.find("mqtts://"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(with([&](auto& o) {
    o.url = "mqtts://127.0.0.1:1";
    o.tls.cert_file = no_ca;
  }));
  EXPECT_NE(m.find("tls.key_file"), std::string::npos) << m;

  m = thrown<std::invalid_argument>(with([](auto& o) { o.buffer.max_messages = 0; }));
  EXPECT_NE(m.find("buffer.max_messages"), std::string::npos) << m;
  m = thrown<std::invalid_argument>(with([](auto& o) { o.keepalive = 1s; }));
  EXPECT_NE(m.find("keepalive"), std::string::npos) << m;
}

// Defaults: the client id names the box and process, the port follows the scheme; publish()
// refuses topics MQTT forbids and QoS 2, and anything after stop().
TEST(MqttPublisherOptions, DefaultsAndPublishChecks) {
  MqttPublisherOptions o;
  o.url = "mqtt://127.0.0.1";
  MqttPublisher publisher(o);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(publisher.client_id(),
            "yolo-edge-" + std::string(host) + "-" + std::to_string(::getpid()));
  EXPECT_EQ(publisher.broker(), "mqtt://127.0.0.1:1883");
  EXPECT_THROW(publisher.publish("a/+/b", "x"), std::invalid_argument);
  EXPECT_THROW(publisher.publish("a/#", "x"), std::invalid_argument);
  EXPECT_THROW(publisher.publish("", "x"), std::invalid_argument);
  EXPECT_THROW(publisher.publish("a", "x", 2), std::invalid_argument);
  EXPECT_TRUE(publisher.publish("a", "x"));
  publisher.stop();
  publisher.stop();  // idempotent
  EXPECT_FALSE(publisher.publish("a", "x"));
  EXPECT_EQ(publisher.stats().state, MqttConnectionState::kStopped);
}

// ---- against a broker that is not there or does not answer -------------------------------------

// Nothing listens: publish() keeps buffering, the state says why, stop() is quick, nothing
// throws or crashes; a message bigger than the whole buffer is refused and counted.
TEST(MqttPublisherBroker, NoBrokerMeansBufferingAndAClearReason) {
  auto o = fast_options("mqtt://127.0.0.1:" + std::to_string(yolo::testing::free_port()));
  o.buffer.max_bytes = 1000;
  auto publisher = std::make_unique<MqttPublisher>(o);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(publisher->publish("yolo/t", std::to_string(i)));
  EXPECT_FALSE(publisher->publish("yolo/t", std::string(1000, 'x')));
  ASSERT_TRUE(eventually([&] { return publisher->stats().reconnects >= 2; }, 5s))
      << describe(publisher->stats());
  const auto s = publisher->stats();
  EXPECT_FALSE(s.connected);
  EXPECT_NE(s.last_error.find("connection refused"), std::string::npos) << s.last_error;
  EXPECT_EQ(s.queued_messages, 10u);
  EXPECT_EQ(s.dropped_too_big, 1u);
  EXPECT_EQ(s.enqueued, 10u);
  EXPECT_FALSE(publisher->flush(50ms));
  const auto t0 = std::chrono::steady_clock::now();
  publisher.reset();
  const auto stop_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("[ measure  ] destruction with the broker gone: %lld ms\n",
              static_cast<long long>(stop_ms));
  EXPECT_LT(stop_ms, 1000);
}

// A listener that takes the TCP connection but never answers CONNECT: the attempt is abandoned
// after connect_timeout with a sentence saying so, and retried.
TEST(MqttPublisherBroker, SilentListenerTimesOut) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 16), 0);  // the kernel completes handshakes; nobody ever reads
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  auto o = fast_options("mqtt://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)));
  o.connect_timeout = 300ms;
  {
    MqttPublisher publisher(o);
    ASSERT_TRUE(eventually([&] { return publisher.stats().reconnects >= 1; }, 5s));
    const auto s = publisher.stats();
    EXPECT_NE(s.last_error.find("within connect_timeout (300 ms)"), std::string::npos)
        << s.last_error;
  }
  ::close(fd);
}

// A url whose port is a web server, not a broker: the reason says that what answered is not an
// MQTT listener and what to check, rather than "the broker closed the connection".
TEST(MqttPublisherBroker, AWebServerOnTheUrlIsNamedAsNotMqtt) {
  httplib::Server web;
  web.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("a web page", "text/plain");
  });
  // It waits for a request line that MQTT's binary CONNECT never completes, then hangs up: before
  // the publisher's connect_timeout (3 s), as a web server's own read timeout does.
  web.set_read_timeout(std::chrono::milliseconds(500));
  web.set_keep_alive_timeout(1);
  const int port = web.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { web.listen_after_bind(); });
  ASSERT_TRUE(eventually([&] { return web.is_running(); }, 5s));
  {
    MqttPublisher publisher(fast_options("mqtt://127.0.0.1:" + std::to_string(port)));
    ASSERT_TRUE(eventually([&] { return publisher.stats().reconnects >= 1; }, 5s))
        << describe(publisher.stats());
    const std::string e = publisher.stats().last_error;
    EXPECT_EQ(e.find("the broker closed the connection"), std::string::npos) << e;
    EXPECT_TRUE(e.find("not MQTT") != std::string::npos ||
                e.find("without answering MQTT's CONNECT") != std::string::npos)
        << e;
    EXPECT_NE(e.find("1883"), std::string::npos) << "names the usual ports: " << e;
  }
  web.stop();
  serving.join();
}

// ---- against a real mosquitto ------------------------------------------------------------------

// 1000 QoS 1 messages while connected: the subscriber gets each once, in order, and every
// counter agrees.
TEST(MqttPublisherBroker, DeliversEveryMessageInOrder) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_order");
  MosquittoTestBroker broker(dir.path);
  broker.start();
  MqttTestSubscriber subscriber(broker.port(), "yolo/test/order", "yolo-test-sub-order", false);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));
  MqttPublisher publisher(fast_options(broker.url()));
  constexpr int kCount = 1000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCount; ++i)
    ASSERT_TRUE(publisher.publish("yolo/test/order", std::to_string(i)));
  ASSERT_TRUE(publisher.flush(20s)) << describe(publisher.stats());
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  ASSERT_TRUE(subscriber.wait_count(kCount, 10s)) << subscriber.messages().size();
  std::this_thread::sleep_for(100ms);  // nothing more arrives
  EXPECT_EQ(as_numbers(subscriber.messages()), range(0, kCount));
  const auto s = publisher.stats();
  std::printf("[ measure  ] %d QoS 1 messages published and acknowledged in %lld ms\n", kCount,
              static_cast<long long>(ms));
  EXPECT_EQ(s.state, MqttConnectionState::kConnected);
  EXPECT_TRUE(s.connected);
  EXPECT_EQ(s.enqueued, uint64_t{kCount});
  EXPECT_EQ(s.sent, uint64_t{kCount});
  EXPECT_EQ(s.resent, 0u);
  EXPECT_EQ(s.acknowledged, uint64_t{kCount});
  EXPECT_EQ(s.delivered, uint64_t{kCount});
  EXPECT_EQ(s.dropped, 0u);
  EXPECT_EQ(s.queued_messages, 0u);
  EXPECT_EQ(s.queued_bytes, 0u);
  EXPECT_EQ(s.connections, 1u);
  EXPECT_EQ(s.reconnects, 0u);
  EXPECT_TRUE(s.last_error.empty()) << s.last_error;
  expect_balanced(s);
}

// QoS 0 (the default here, and per message): it leaves the buffer when written, without a
// PUBACK; on a healthy loopback connection every message still arrives in order.
TEST(MqttPublisherBroker, QosZeroLeavesWhenSent) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_qos0");
  MosquittoTestBroker broker(dir.path);
  broker.start();
  MqttTestSubscriber subscriber(broker.port(), "yolo/test/qos0", "yolo-test-sub-qos0", false);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));
  auto o = fast_options(broker.url());
  o.qos = 0;
  MqttPublisher publisher(o);
  ASSERT_TRUE(eventually([&] { return publisher.stats().connected; }, 5s));
  for (int i = 0; i < 200; ++i) publisher.publish("yolo/test/qos0", std::to_string(i));
  ASSERT_TRUE(publisher.flush(10s));
  ASSERT_TRUE(subscriber.wait_count(200, 10s));
  EXPECT_EQ(as_numbers(subscriber.messages()), range(0, 200));
  const auto s = publisher.stats();
  EXPECT_EQ(s.delivered, 200u);
  EXPECT_EQ(s.acknowledged, 0u);
  expect_balanced(s);
}

// The broker hangs (SIGSTOP) for 300 ms and then crashes (SIGKILL) while the caller publishes
// at a steady rate, and comes back on the same port about 2 s later. What was sent during the
// hang sat unread in the dead broker's socket and must be resent. Within the buffer bound
// nothing is lost: every number arrives
// at least once (duplicates are allowed and counted: at-least-once), first arrivals are in
// order, publish() never waited for the network, and the counters tell the story.
//
// How the subscriber sees everything honestly across the crash: it holds a persistent session
// (clean_session false, QoS 1) on a persistent broker, written to disk by a clean restart before
// the test starts publishing, so the restarted broker queues for it whatever the publisher
// resends before the subscriber is back. Messages the broker acknowledged before it died had
// already been written to the subscriber's socket (mosquitto forwards to connected subscribers
// before it sends the PUBACK), so a message missing at the end can only be one the publisher
// failed to resend.
TEST(MqttPublisherBroker, BrokerCrashAndRestartLosesNothingWithinTheBuffer) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_crash");
  MosquittoConfig config;
  config.persistence = true;
  MosquittoTestBroker broker(dir.path, config);
  broker.start();
  const std::string topic = "yolo/test/crash";
  MqttTestSubscriber subscriber(broker.port(), topic, "yolo-test-sub-crash", true);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));
  const int subscriptions = subscriber.subscriptions();
  broker.stop();  // writes the session to disk
  broker.start();
  ASSERT_TRUE(subscriber.wait_subscribed(5s, subscriptions)) << "the subscriber did not return";

  MqttPublisher publisher(fast_options(broker.url()));
  ASSERT_TRUE(eventually([&] { return publisher.stats().connected; }, 5s));

  constexpr int kTotal = 1500;
  constexpr auto kPeriod = 2ms;  // 500 messages/s: about 1000 published while the broker is down
  std::atomic<bool> chaos_failed{false};
  std::thread chaos([&] {
    std::this_thread::sleep_for(800ms);
    broker.freeze();
    std::this_thread::sleep_for(300ms);
    broker.kill();
    std::this_thread::sleep_for(1700ms);
    try {
      broker.start();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      chaos_failed = true;
    }
  });
  auto max_publish = std::chrono::steady_clock::duration::zero();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kTotal; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(publisher.publish(topic, std::to_string(i)));
    max_publish = std::max(max_publish, std::chrono::steady_clock::now() - t0);
    std::this_thread::sleep_until(start + (i + 1) * kPeriod);
  }
  chaos.join();
  ASSERT_FALSE(chaos_failed) << broker.log();
  ASSERT_TRUE(publisher.flush(20s)) << describe(publisher.stats());

  // Every number at least once, then a moment for stragglers.
  auto distinct = [&] {
    const auto got = as_numbers(subscriber.messages());
    return std::set<int>(got.begin(), got.end()).size();
  };
  ASSERT_TRUE(eventually([&] { return distinct() >= size_t{kTotal}; }, 15s))
      << "received " << distinct() << " of " << kTotal << " distinct numbers; "
      << describe(publisher.stats()) << "\n"
      << broker.log();
  std::this_thread::sleep_for(200ms);

  const auto got = as_numbers(subscriber.messages());
  std::set<int> seen;
  std::vector<int> first_arrivals;
  for (int n : got)
    if (seen.insert(n).second) first_arrivals.push_back(n);
  EXPECT_EQ(first_arrivals, range(0, kTotal)) << "first arrivals out of order or missing";
  const size_t duplicates = got.size() - seen.size();
  const auto s = publisher.stats();
  const double max_ms = std::chrono::duration<double, std::milli>(max_publish).count();
  std::printf(
      "[ measure  ] crash and restart: %d published, %zu received, %zu duplicates, "
      "max publish() %.3f ms, reconnects %llu, resent %llu\n",
      kTotal, got.size(), duplicates, max_ms, static_cast<unsigned long long>(s.reconnects),
      static_cast<unsigned long long>(s.resent));
  EXPECT_LT(max_ms, 50.0) << "publish() must not wait for the network";
  EXPECT_GE(s.reconnects, 1u);
  EXPECT_GE(s.connections, 2u);
  EXPECT_GE(s.resent, 1u) << "messages unacknowledged by the frozen broker go again";
  EXPECT_EQ(s.dropped, 0u);
  EXPECT_EQ(s.enqueued, uint64_t{kTotal});
  EXPECT_EQ(s.acknowledged, uint64_t{kTotal});
  EXPECT_EQ(s.delivered, uint64_t{kTotal});
  EXPECT_EQ(s.sent, uint64_t{kTotal} + s.resent);
  EXPECT_TRUE(s.connected);
  EXPECT_FALSE(s.last_error.empty()) << "the outage is remembered";
  expect_balanced(s);
}

// 200 messages published while the broker is down into a buffer of 50: exactly the newest 50
// arrive when it is back, in order, and 150 are counted as dropped.
TEST(MqttPublisherBroker, OverflowWhileDownKeepsTheNewest) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_overflow");
  MosquittoConfig config;
  config.persistence = true;
  MosquittoTestBroker broker(dir.path, config);
  broker.start();
  const std::string topic = "yolo/test/overflow";
  MqttTestSubscriber subscriber(broker.port(), topic, "yolo-test-sub-overflow", true);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));
  broker.stop();  // clean: the subscriber's session is on disk and comes back with the broker

  LogCapture log;
  auto o = fast_options(broker.url());
  o.buffer.max_messages = 50;
  MqttPublisher publisher(o);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(publisher.publish(topic, std::to_string(i)));
  auto s = publisher.stats();
  EXPECT_FALSE(s.connected);
  EXPECT_EQ(s.queued_messages, 50u);
  EXPECT_EQ(s.dropped, 150u);
  EXPECT_EQ(log.warnings_with("the buffer is full"), 1) << "said once, not per message";

  broker.start();
  ASSERT_TRUE(publisher.flush(10s)) << describe(publisher.stats());
  ASSERT_TRUE(subscriber.wait_count(50, 10s)) << subscriber.messages().size();
  std::this_thread::sleep_for(300ms);  // nothing more arrives
  EXPECT_EQ(as_numbers(subscriber.messages()), range(150, 200));
  s = publisher.stats();
  EXPECT_EQ(s.dropped, 150u);
  EXPECT_EQ(s.delivered, 50u);
  EXPECT_EQ(s.enqueued, 200u);
  expect_balanced(s);
}

// mqtts:// with a CA made here: delivers with the right CA; with another CA it stays
// disconnected, says in last_error that TLS failed and why, keeps retrying, does not crash.
TEST(MqttPublisherBroker, TlsWithTheRightAndAWrongCa) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_tls");
  const TestCertificates certs = make_certificates(dir.path);
  if (::testing::Test::HasFatalFailure()) return;
  MosquittoTestBroker broker(dir.path / "broker", tls_broker_config(certs));
  broker.start();
  const std::string topic = "yolo/test/tls";
  MqttTestSubscriber subscriber(broker.plain_port(), topic, "yolo-test-sub-tls", false);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));

  auto good = fast_options(broker.url());
  good.tls.ca_file = certs.ca;
  {
    MqttPublisher publisher(good);
    for (int i = 0; i < 100; ++i) publisher.publish(topic, std::to_string(i));
    ASSERT_TRUE(publisher.flush(10s)) << describe(publisher.stats());
    EXPECT_TRUE(publisher.stats().last_error.empty()) << publisher.stats().last_error;
  }
  ASSERT_TRUE(subscriber.wait_count(100, 10s));
  EXPECT_EQ(as_numbers(subscriber.messages()), range(0, 100));

  auto wrong = good;
  wrong.tls.ca_file = certs.other_ca;
  MqttPublisher publisher(wrong);
  publisher.publish(topic, "never");
  ASSERT_TRUE(eventually([&] { return publisher.stats().reconnects >= 2; }, 5s))
      << describe(publisher.stats());
  const auto s = publisher.stats();
  std::printf("[ measure  ] wrong CA: last_error '%s'\n", s.last_error.c_str());
  EXPECT_FALSE(s.connected);
  EXPECT_EQ(s.connections, 0u);
  EXPECT_NE(s.last_error.find("TLS"), std::string::npos) << s.last_error;
  EXPECT_NE(s.last_error.find("certificate verify failed"), std::string::npos) << s.last_error;
  EXPECT_NE(s.last_error.find("tls.ca_file"), std::string::npos) << s.last_error;
  EXPECT_EQ(s.queued_messages, 1u);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(subscriber.messages().size(), 100u);
}

// A TLS broker that hangs with 50 messages unread and then crashes: the connection counts as
// lost (nothing throws, the process lives on), and all 50 are resent over a new TLS session and
// arrive in order once the broker is back.
TEST(MqttPublisherBroker, TlsBrokerCrashResendsEverythingUnacknowledged) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_tls_crash");
  const TestCertificates certs = make_certificates(dir.path);
  if (::testing::Test::HasFatalFailure()) return;
  MosquittoConfig config = tls_broker_config(certs);
  config.persistence = true;
  MosquittoTestBroker broker(dir.path / "broker", config);
  broker.start();
  const std::string topic = "yolo/test/tls-crash";
  MqttTestSubscriber subscriber(broker.plain_port(), topic, "yolo-test-sub-tls-crash", true);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));
  const int subscriptions = subscriber.subscriptions();
  broker.stop();  // writes the subscriber's session to disk
  broker.start();
  ASSERT_TRUE(subscriber.wait_subscribed(5s, subscriptions));

  auto o = fast_options(broker.url());
  o.tls.ca_file = certs.ca;
  MqttPublisher publisher(o);
  ASSERT_TRUE(eventually([&] { return publisher.stats().connected; }, 5s));
  broker.freeze();
  for (int i = 0; i < 50; ++i) publisher.publish(topic, std::to_string(i));
  ASSERT_TRUE(eventually([&] { return publisher.stats().in_flight == 50; }, 5s))
      << describe(publisher.stats());
  broker.kill();
  ASSERT_TRUE(eventually([&] { return !publisher.stats().connected; }, 5s));
  std::printf("[ measure  ] TLS broker crash: last_error '%s'\n",
              publisher.stats().last_error.c_str());
  broker.start();
  ASSERT_TRUE(publisher.flush(10s)) << describe(publisher.stats());
  ASSERT_TRUE(subscriber.wait_count(50, 10s)) << subscriber.messages().size();
  EXPECT_EQ(as_numbers(subscriber.messages()), range(0, 50));
  const auto s = publisher.stats();
  EXPECT_EQ(s.resent, 50u);
  EXPECT_EQ(s.acknowledged, 50u);
  expect_balanced(s);
}

// User and password: the right password delivers; a wrong one is refused by the broker with
// "not authorised", said once in the log however often it is retried; neither password ever
// appears in a log line or in the state.
TEST(MqttPublisherBroker, PasswordRightAndWrongAndNeverShown) {
  SKIP_WITHOUT_MOSQUITTO();
  TempDir dir("mqtt_auth");
  const std::string good_secret = "Corr3ct-H0rse-Battery-Staple-41";
  const std::string bad_secret = "Wr0ng-Tr0ub4dor-and-3-x9q";
  const std::string passwd = (dir.path / "mosquitto.passwd").string();
  run_or_fail("mosquitto_passwd -c -b " + passwd + " edge '" + good_secret + "'");
  if (::testing::Test::HasFatalFailure()) return;
  yolo::testing::write_file(dir.path / "good-password", good_secret + "\n");
  yolo::testing::write_file(dir.path / "bad-password", bad_secret + "\n");

  MosquittoConfig config;
  config.password_file = passwd;
  MosquittoTestBroker broker(dir.path / "broker", config);
  broker.start();
  const std::string topic = "yolo/test/auth";
  MqttTestSubscriber subscriber(broker.port(), topic, "yolo-test-sub-auth", false, "edge",
                                good_secret);
  ASSERT_TRUE(subscriber.wait_subscribed(5s));

  LogCapture log;
  std::string states;
  {
    auto o = fast_options(broker.url());
    o.username = "edge";
    o.password_file = (dir.path / "good-password").string();
    MqttPublisher publisher(o);
    for (int i = 0; i < 10; ++i) publisher.publish(topic, std::to_string(i));
    ASSERT_TRUE(publisher.flush(10s)) << describe(publisher.stats());
    states += describe(publisher.stats());
  }
  ASSERT_TRUE(subscriber.wait_count(10, 10s));
  EXPECT_EQ(as_numbers(subscriber.messages()), range(0, 10));

  {
    auto o = fast_options(broker.url());
    o.username = "edge";
    o.password_file = (dir.path / "bad-password").string();
    MqttPublisher publisher(o);
    publisher.publish(topic, "refused");
    ASSERT_TRUE(eventually([&] { return publisher.stats().reconnects >= 3; }, 5s))
        << describe(publisher.stats());
    const auto s = publisher.stats();
    states += describe(s);
    std::printf("[ measure  ] wrong password: last_error '%s' after %llu reconnects\n",
                s.last_error.c_str(), static_cast<unsigned long long>(s.reconnects));
    EXPECT_FALSE(s.connected);
    // Disconnected, or connecting again: reconnects counts an attempt when it starts.
    EXPECT_NE(s.state, MqttConnectionState::kConnected);
    EXPECT_NE(s.last_error.find("not authorised"), std::string::npos) << s.last_error;
    EXPECT_NE(s.last_error.find("password_file"), std::string::npos) << s.last_error;
    const auto more = s.reconnects + 2;
    EXPECT_TRUE(eventually([&] { return publisher.stats().reconnects >= more; }, 5s))
        << "keeps retrying";
  }
  const std::string text = log.text();
  EXPECT_EQ(log.warnings_with("not authorised"), 1) << "once per distinct problem:\n" << text;
  EXPECT_NE(text.find("connected to " + broker.url()), std::string::npos) << text;
  for (const auto& secret : {good_secret, bad_secret}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << "a password in the log:\n" << text;
    EXPECT_EQ(states.find(secret), std::string::npos) << "a password in the state:\n" << states;
  }
}
