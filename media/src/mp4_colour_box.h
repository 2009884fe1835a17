// The full-range flag of an MP4/MOV file's video colour box ('colr' of type 'nclx', ISO/IEC
// 14496-12 12.1.5), read straight from the file: GStreamer 1.22's qtdemux reads this bit from
// the wrong byte (frame_colours.h).
#pragma once

#include <optional>
#include <string>

namespace yolo::media {

// The flag of the first video sample entry that has an 'nclx' colour box; nullopt when the file
// is not MP4/MOV, cannot be read, or no sample entry has one.
std::optional<bool> mp4_full_range_flag(const std::string& path);

}  // namespace yolo::media
