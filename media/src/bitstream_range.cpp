#include "bitstream_range.h"

#include <gst/codecparsers/gsth264parser.h>
#include <gst/codecparsers/gsth265parser.h>

#include <cstring>
#include <memory>

namespace yolo::media {
namespace {

struct BufferMap {
  GstBuffer* buffer = nullptr;
  GstMapInfo info{};
  explicit BufferMap(GstBuffer* b) : buffer(b) {
    if (!gst_buffer_map(buffer, &info, GST_MAP_READ)) buffer = nullptr;
  }
  ~BufferMap() {
    if (buffer) gst_buffer_unmap(buffer, &info);
  }
  BufferMap(const BufferMap&) = delete;
  BufferMap& operator=(const BufferMap&) = delete;
};

std::optional<bool> h264_range(const guint8* data, gsize size) {
  std::unique_ptr<GstH264NalParser, void (*)(GstH264NalParser*)> parser(gst_h264_nal_parser_new(),
                                                                        gst_h264_nal_parser_free);
  GstH264DecoderConfigRecord* record = nullptr;
  if (gst_h264_parser_parse_decoder_config_record(parser.get(), data, size, &record) !=
      GST_H264_PARSER_OK)
    return std::nullopt;
  std::unique_ptr<GstH264DecoderConfigRecord, void (*)(GstH264DecoderConfigRecord*)> owned(
      record, gst_h264_decoder_config_record_free);
  for (guint i = 0; i < record->sps->len; ++i) {
    GstH264NalUnit* nalu = &g_array_index(record->sps, GstH264NalUnit, i);
    GstH264SPS sps;
    if (gst_h264_parser_parse_sps(parser.get(), nalu, &sps) != GST_H264_PARSER_OK) continue;
    const bool said =
        sps.vui_parameters_present_flag && sps.vui_parameters.video_signal_type_present_flag;
    const bool full = sps.vui_parameters.video_full_range_flag;
    gst_h264_sps_clear(&sps);
    if (said) return full;
  }
  return std::nullopt;
}

// hvcC (ISO/IEC 14496-15): a 22-byte header, the number of arrays, then the arrays of NAL units
// (a type byte, a 2-byte count, and each unit with a 2-byte length).
std::optional<bool> h265_range(const guint8* data, gsize size) {
  constexpr gsize kHeader = 22;
  if (size < kHeader + 1) return std::nullopt;
  std::unique_ptr<GstH265Parser, void (*)(GstH265Parser*)> parser(gst_h265_parser_new(),
                                                                  gst_h265_parser_free);
  gsize at = kHeader;
  const guint arrays = data[at++];
  for (guint a = 0; a < arrays && at + 3 <= size; ++a) {
    ++at;  // array_completeness, reserved, NAL unit type
    const guint count = (data[at] << 8) | data[at + 1];
    at += 2;
    for (guint n = 0; n < count && at + 2 <= size; ++n) {
      const gsize length = (data[at] << 8) | data[at + 1];
      if (at + 2 + length > size) return std::nullopt;
      GstH265NalUnit nalu;
      if (gst_h265_parser_identify_nalu_hevc(parser.get(), data, static_cast<guint>(at), size, 2,
                                             &nalu) == GST_H265_PARSER_OK) {
        if (nalu.type == GST_H265_NAL_SPS) {
          GstH265SPS sps;
          if (gst_h265_parser_parse_sps(parser.get(), &nalu, &sps, TRUE) == GST_H265_PARSER_OK &&
              sps.vui_parameters_present_flag && sps.vui_params.video_signal_type_present_flag)
            return sps.vui_params.video_full_range_flag != 0;
        } else {
          gst_h265_parser_parse_nal(parser.get(), &nalu);  // a VPS the SPS may refer to
        }
      }
      at += 2 + length;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<bool> bitstream_full_range(const GstCaps* caps) {
  const GstStructure* s =
      caps && gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : nullptr;
  if (!s) return std::nullopt;
  const GValue* value = gst_structure_get_value(s, "codec_data");
  if (!value || !GST_VALUE_HOLDS_BUFFER(value)) return std::nullopt;
  BufferMap map(gst_value_get_buffer(value));
  if (!map.buffer) return std::nullopt;
  const char* name = gst_structure_get_name(s);
  if (std::strcmp(name, "video/x-h264") == 0) return h264_range(map.info.data, map.info.size);
  if (std::strcmp(name, "video/x-h265") == 0) return h265_range(map.info.data, map.info.size);
  return std::nullopt;
}

}  // namespace yolo::media
