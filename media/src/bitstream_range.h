// The colour range an H.264 or H.265 stream signals itself: the video_full_range_flag of its
// sequence parameter set's VUI, read from the codec configuration a demuxer puts in the caps
// (codec_data: avcC, hvcC). FFmpeg decodes by this flag, whatever the container says.
#pragma once

#include <gst/gst.h>

#include <optional>

namespace yolo::media {

// true: full range, false: limited; nullopt when the stream says nothing (no VUI or no
// video_signal_type in it), the caps carry no codec configuration, or another codec.
std::optional<bool> bitstream_full_range(const GstCaps* caps);

}  // namespace yolo::media
