#include "mqtt_outbox.h"

#include <algorithm>

namespace yolo::mqtt_detail {

MqttOutbox::MqttOutbox(size_t max_messages, size_t max_bytes)
    : max_messages_(max_messages), max_bytes_(max_bytes) {}

PushOutcome MqttOutbox::push(std::shared_ptr<const OutboxMessage> message) {
  PushOutcome outcome;
  const size_t size = message->bytes();
  if (size > max_bytes_) return outcome;
  while (!entries_.empty() && (entries_.size() + 1 > max_messages_ || bytes_ + size > max_bytes_)) {
    erase(entries_.begin());
    ++outcome.dropped_oldest;
  }
  entries_.push_back(Entry{next_seq_++, std::move(message)});
  bytes_ += size;
  outcome.accepted = true;
  return outcome;
}

std::optional<OutboxItem> MqttOutbox::next_unsent(size_t window) const {
  if (in_flight_ >= entries_.size() || in_flight_ >= window) return std::nullopt;
  const Entry& e = entries_[in_flight_];
  return OutboxItem{e.seq, e.message, e.sent_before};
}

bool MqttOutbox::mark_sent(uint64_t seq, int mid) {
  auto it = find_seq(seq);
  if (it == entries_.end()) return false;
  // Only the first unsent message is ever handed out, so `it` sits right after the in-flight
  // ones: erasing (QoS 0) or counting it in flight (QoS 1) keeps the layout.
  if (it->message->qos == 0) {
    erase(it);
  } else {
    it->mid = mid;
    it->sent_before = true;
    ++in_flight_;
  }
  return true;
}

bool MqttOutbox::acknowledge(int mid) {
  // Brokers acknowledge in order, so this is nearly always the front.
  const auto end = entries_.begin() + static_cast<std::ptrdiff_t>(in_flight_);
  auto it = std::find_if(entries_.begin(), end, [mid](const Entry& e) { return e.mid == mid; });
  if (it == end) return false;
  erase(it);
  return true;
}

bool MqttOutbox::discard(uint64_t seq) {
  auto it = find_seq(seq);
  if (it == entries_.end()) return false;
  erase(it);
  return true;
}

void MqttOutbox::restart() {
  for (size_t i = 0; i < in_flight_; ++i) entries_[i].mid = 0;
  in_flight_ = 0;
}

std::deque<MqttOutbox::Entry>::iterator MqttOutbox::find_seq(uint64_t seq) {
  // Sequence numbers grow along the deque (erasing keeps the order).
  auto it = std::lower_bound(entries_.begin(), entries_.end(), seq,
                             [](const Entry& e, uint64_t s) { return e.seq < s; });
  return it != entries_.end() && it->seq == seq ? it : entries_.end();
}

void MqttOutbox::erase(std::deque<Entry>::iterator it) {
  if (static_cast<size_t>(it - entries_.begin()) < in_flight_) --in_flight_;
  bytes_ -= it->message->bytes();
  entries_.erase(it);
}

}  // namespace yolo::mqtt_detail
