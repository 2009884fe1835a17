// PredictOptions from the settings keys, with Ultralytics' predict defaults (conf 0.25 when
// null, batch 1 unless given).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <optional>

#include "yolo/runtime/inference_settings.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/mot_metrics.h"
#include "yolo/trainer/modes/predict_settings.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/shared_settings.h"

namespace yolo {
namespace fs = std::filesystem;

PredictOptions predict_options_from_config(const Config& cfg, const std::string& torch_device) {
  PredictOptions o;
  if (cfg.is_null("model"))
    throw ConfigError(
        "predict needs model=path/to/best.pt (or an Ultralytics .torchscript export)");
  o.model = cfg.get_string("model");
  if (std::filesystem::path(o.model).extension() == ".yaml")
    throw ConfigError(fmt::format(
        "predict needs trained weights, not an architecture ({}); give "
        "model=runs/detect/train/weights/best.pt, or export one with yolo-trainer export",
        o.model));
  if (cfg.is_null("source") || cfg.get_string("source").empty())
    throw ConfigError(
        "predict needs source=: an image, a folder, a glob ('dir/*.jpg'), a .txt list, a video "
        "or a stream URI (rtsp://...)");
  o.source = cfg.get_string("source");
  o.device = torch_device;
  const InferencePrecision precision = precision_setting(cfg, torch_device);
  o.half = precision.half;
  o.bf16 = precision.bf16;

  // max_det's range (1..30000) is default.yaml's, checked when the key is read.
  const InferenceSettings in = inference_settings(cfg, kPredictConf);
  o.nms.conf = static_cast<float>(in.conf);
  o.nms.iou = static_cast<float>(in.iou);
  o.nms.max_det = in.max_det;
  o.nms.agnostic = in.agnostic;
  o.nms_setting = cfg.get_optional_bool("nms");
  o.nms.multi_label = false;
  const std::set<int> classes = classes_setting(cfg);  // the ids in.classes holds as text
  o.nms.classes.assign(classes.begin(), classes.end());

  // batch=16 is training's default; predict runs one frame at a time unless asked.
  o.batch = cfg.was_set("batch") ? static_cast<int>(cfg.get_int("batch")) : 1;
  if (o.batch < 1)
    throw ConfigError(fmt::format("batch={} is invalid for predict: use 1 or more", o.batch));

  o.source_options.vid_stride = static_cast<int>(cfg.get_int("vid_stride"));
  if (o.source_options.vid_stride < 1)
    throw ConfigError(fmt::format("vid_stride={} is invalid: use 1 (every frame) or more",
                                  o.source_options.vid_stride));
  o.source_options.stream_buffer = cfg.get_bool("stream_buffer");
  o.source_options.timeout_s = cfg.get_float("stream_timeout");
  if (!(o.source_options.timeout_s > 0))
    throw ConfigError(fmt::format("stream_timeout={} is invalid: use a positive number of seconds",
                                  o.source_options.timeout_s));

  o.save = cfg.get_bool("save");
  o.save_txt = cfg.get_bool("save_txt");
  o.save_conf = cfg.get_bool("save_conf");
  o.save_crop = cfg.get_bool("save_crop");
  o.annotate.show_boxes = cfg.get_bool("show_boxes");
  o.annotate.show_labels = cfg.get_bool("show_labels");
  o.annotate.show_conf = cfg.get_bool("show_conf");
  o.annotate.line_width =
      cfg.is_null("line_width") ? 0 : static_cast<int>(cfg.get_int("line_width"));
  if (o.annotate.line_width < 0)
    throw ConfigError(
        fmt::format("line_width={} is invalid: use a positive width or leave it "
                    "empty for the default",
                    o.annotate.line_width));

  o.project = cfg.is_null("project") ? "" : cfg.get_string("project");
  o.name = cfg.is_null("name") ? "" : cfg.get_string("name");
  o.exist_ok = cfg.get_bool("exist_ok");
  o.verbose = cfg.get_bool("verbose");
  if (const ImageSize imgsz = imgsz_setting(cfg); imgsz.given) o.imgsz = {imgsz.h, imgsz.w};
  o.rect = in.rect;
  return o;
}

namespace {

// The name of the image sequence `source` is ("" when it is none: a video, a stream, an image),
// and, for a MOT sequence folder (seq/seqinfo.ini, seq/img1/*.jpg, seq/gt/gt.txt), `source`
// becomes its frames folder: seqinfo.ini's imDir (img1 without one), the sequence named by its
// name= or the folder's. seqinfo.ini's frameRate is not used: Ultralytics' trackers run at 30
// frames/s whatever the source (track_buffer counts frames), and so do ours.
std::string sequence_of_source(const Config& cfg, std::string& source_text) {
  const fs::path source(source_text);
  const InputKind kind = classify_source(source_text);
  if (kind == InputKind::kGlob || kind == InputKind::kList) return source_stem(source_text);
  if (kind != InputKind::kFolder) return "";
  std::optional<tracking::SequenceInfo> info;
  if (fs::is_regular_file(source / "seqinfo.ini")) {
    try {
      info = tracking::read_sequence_info(source / "seqinfo.ini");
    } catch (const std::exception& e) {
      throw ConfigError(fmt::format("source={}: {}; fix or remove seqinfo.ini",
                                    cfg.get_string("source"), e.what()));
    }
    const fs::path frames = source / info->im_dir;
    if (!fs::is_directory(frames)) {
      // Say what the file says (or that it says nothing and the default was looked for), and
      // what is at that path.
      const std::string said =
          info->im_dir_line > 0
              ? fmt::format("seqinfo.ini line {} says imDir={}", info->im_dir_line, info->im_dir)
              : fmt::format("seqinfo.ini names no imDir, so the frames are looked for in {}/",
                            info->im_dir);
      const std::string found =
          fs::exists(frames) ? fmt::format("{} is a file, not a folder of frames", frames.string())
                             : fmt::format("{} is not there", frames.string());
      throw ConfigError(fmt::format("source={}: {}, and {}; fix imDir= or the folder",
                                    cfg.get_string("source"), said, found));
    }
  }
  if (!info && !fs::is_directory(source / "img1")) return source_stem(source_text);
  std::string name =
      info && !info->name.empty() ? info->name : source.lexically_normal().filename().string();
  if (name.empty()) name = source.lexically_normal().parent_path().filename().string();
  source_text = (source / (info ? info->im_dir : "img1")).string();
  return name;
}

}  // namespace

PredictOptions track_options_from_config(const Config& cfg, const std::string& torch_device) {
  PredictOptions o = predict_options_from_config(cfg, torch_device);
  o.tracker = tracking::load_tracker_config(cfg.get_string("tracker"));
  if (cfg.is_null("conf")) o.nms.conf = static_cast<float>(kTrackConf);
  if (o.nms.conf > static_cast<float>(o.tracker->track_low_thresh)) {
    spdlog::warn(
        "conf={:g} is above the tracker's track_low_thresh ({:g}): its second association will "
        "see no low-score boxes; leave conf unset (0.1) for tracking",
        o.nms.conf, o.tracker->track_low_thresh);
  }
  o.persist = cfg.get_optional_bool("persist");
  const std::string sequence = sequence_of_source(cfg, o.source);
  // The sequence's tracks are written (and scored) when its images run as one sequence.
  if (o.persist.value_or(true) && !sequence.empty()) o.mot_name = sequence;
  if (!cfg.is_null("gt")) {
    const std::string gt = cfg.get_string("gt");
    if (o.mot_name.empty())
      throw ConfigError(fmt::format(
          "gt= scores a tracked image sequence, and source={} is not one (with persist={}): give "
          "a folder of frames or a MOT sequence folder (seq/img1/)",
          cfg.get_string("source"), o.persist ? (*o.persist ? "True" : "False") : "unset"));
    try {
      o.gt = tracking::read_mot_file(gt);   // a missing or malformed file fails now, not after
      tracking::check_ground_truth(*o.gt);  // so do an empty one and an id twice in a frame
    } catch (const std::exception& e) {
      throw ConfigError(fmt::format("gt={}: {}; give a MOTChallenge gt.txt (frame,id,x,y,w,h,...)",
                                    gt, e.what()));
    }
  }
  return o;
}

}  // namespace yolo
