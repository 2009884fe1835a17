// The parts of the topics the product publishes to, checked where they are configured so that a
// publish never meets a topic MQTT forbids (wildcards, empty levels).
#pragma once

#include <string>

namespace yolo {

// "" when `topic` is a usable prefix, else why not (to follow the setting's name).
std::string mqtt_topic_problem(const std::string& topic);
// "" when `device_id` is a usable topic level, else why not.
std::string mqtt_device_id_problem(const std::string& device_id);

}  // namespace yolo
