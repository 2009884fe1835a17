// The publisher's bounded, ordered buffer of messages that have not yet left for good. Not
// thread-safe: the publisher guards it with its mutex.
//
// Layout (oldest first): [ in flight: sent in this connection, QoS 1, waiting for PUBACK ]
//                        [ unsent: waiting for the connection or for room in the window  ]
// Messages are sent strictly in the order they were pushed. A QoS 0 message leaves when it is
// handed to the socket, a QoS 1 message when its PUBACK arrives. When the connection ends,
// restart() turns everything still in flight back into unsent, so the next connection sends it
// again, in the same order (at-least-once: the broker may see it twice).
//
// Bounds: at most max_messages messages and max_bytes bytes (topic + payload) are held; pushing
// beyond either drops the oldest messages, in flight or not. A message larger than max_bytes on
// its own is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

namespace yolo::mqtt_detail {

struct OutboxMessage {
  std::string topic;
  std::string payload;
  int qos = 1;
  size_t bytes() const { return topic.size() + payload.size(); }
};

// A message the sender should hand to the connection next. `message` stays valid even if the
// outbox drops it meanwhile (shared ownership), so the sender needs no lock while sending.
struct OutboxItem {
  uint64_t seq = 0;  // the outbox's number for it, for mark_sent()
  std::shared_ptr<const OutboxMessage> message;
  bool resend = false;  // it was sent on an earlier connection and not acknowledged there
};

struct PushOutcome {
  bool accepted = false;      // false: bigger than max_bytes on its own, nothing changed
  size_t dropped_oldest = 0;  // messages dropped to make room for it
};

class MqttOutbox {
 public:
  // Both limits >= 1 (the publisher's options check them).
  MqttOutbox(size_t max_messages, size_t max_bytes);

  PushOutcome push(std::shared_ptr<const OutboxMessage> message);

  // The oldest unsent message, when fewer than `window` QoS 1 messages are in flight.
  std::optional<OutboxItem> next_unsent(size_t window) const;

  // The message `seq` from next_unsent() was handed to the connection under packet id `mid`.
  // QoS 0: it leaves the outbox; QoS 1: it is in flight until acknowledge(mid). Returns false
  // when the message was dropped meanwhile (its acknowledgement, if any, will be ignored).
  bool mark_sent(uint64_t seq, int mid);

  // A PUBACK for packet id `mid`: the in-flight message with that id leaves. False when none
  // has it (it was dropped for room while in flight).
  bool acknowledge(int mid);

  // The message `seq` cannot be sent at all (the client library refused it): it leaves.
  bool discard(uint64_t seq);

  // The connection ended: every in-flight message becomes unsent again, oldest first.
  void restart();

  size_t messages() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }
  size_t in_flight() const { return in_flight_; }
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    uint64_t seq;
    std::shared_ptr<const OutboxMessage> message;
    int mid = 0;               // packet id while in flight
    bool sent_before = false;  // sent on an earlier connection
  };
  std::deque<Entry>::iterator find_seq(uint64_t seq);
  void erase(std::deque<Entry>::iterator it);

  const size_t max_messages_, max_bytes_;
  std::deque<Entry> entries_;  // oldest first; entries_[0, in_flight_) are in flight
  size_t in_flight_ = 0;
  size_t bytes_ = 0;
  uint64_t next_seq_ = 1;
};

}  // namespace yolo::mqtt_detail
