#include "yolo/serving/mqtt_topic.h"

#include <regex>

namespace yolo {

std::string mqtt_topic_problem(const std::string& topic) {
  if (topic.empty() || topic.find_first_of("+#") != std::string::npos || topic.front() == '/' ||
      topic.back() == '/' || topic.find("//") != std::string::npos)
    return "must be a non-empty MQTT topic prefix without + or #, empty levels, or a leading or "
           "trailing /";
  return "";
}

std::string mqtt_device_id_problem(const std::string& device_id) {
  static const std::regex level("[A-Za-z0-9_.-]{1,64}");
  if (!std::regex_match(device_id, level))
    return "must be 1 to 64 letters, digits, '_', '.' or '-' (it is a topic level)";
  return "";
}

}  // namespace yolo
