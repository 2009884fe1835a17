// GStreamer start-up, installed-element checks and error text, shared by every user of the
// media library, so that a missing plugin or a failing element reads the same everywhere.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

namespace yolo::media {

// An element a pipeline needs, with the Debian package that ships it.
struct NeededElement {
  const char* factory;
  const char* package;
};

// Empty when GStreamer is initialised (idempotent), otherwise why it cannot start.
std::string gst_init_error();

// The running GStreamer's version, "1.22.0".
std::string gstreamer_version();

// Whether an element factory is installed (GStreamer must be initialised).
bool gst_element_available(const char* factory);

// Empty when GStreamer starts and every element is installed; otherwise one sentence naming
// the missing elements and their packages, ending in "; <purpose> needs it/them".
std::string missing_elements_reason(const std::vector<NeededElement>& needed,
                                    const std::string& purpose);

// The text of an ERROR or WARNING message: "message (element: debug detail)"; other messages
// give their type name.
std::string describe_gst_message(GstMessage* message);

}  // namespace yolo::media
