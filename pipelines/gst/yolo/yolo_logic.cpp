// Logic of the `yolo` element, plain C++; the GObject glue is in gst_yolo.cpp.
#include "yolo_logic.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "debug.h"
#include "http_service.h"
#include "model_instance.h"
#include "result_publisher.h"
#include "video_frames.h"
#include "yolo/core/serial_torch_ops.h"
#include "yolo/core/thread_name.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/runtime/batcher.h"
#include "yolo/runtime/cpu_frame_preprocess.h"
#include "yolo/runtime/engine.h"

namespace yolo::gst {
namespace {

using Clock = std::chrono::steady_clock;

double micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}
double mean(double sum, uint64_t n) {
  return n ? sum / static_cast<double>(n) : 0.0;
}

// "0,2,person" -> class ids. Names must exist in the model; throws std::invalid_argument.
std::vector<int> parse_classes(const std::string& text, const std::map<int, std::string>& names) {
  std::vector<int> ids;
  for (const std::string& item : class_tokens(text)) {
    auto it =
        std::find_if(names.begin(), names.end(), [&](const auto& kv) { return kv.second == item; });
    if (it == names.end() && std::all_of(item.begin(), item.end(), ::isdigit) && item.size() < 10) {
      const int id = std::stoi(item);
      if (names.empty()) {  // a model without class names: ids cannot be checked
        ids.push_back(id);
        continue;
      }
      it = names.find(id);  // an id: it must be one the model has
    }
    if (it == names.end()) {
      const std::string known = describe_classes(names);
      throw std::invalid_argument(fmt::format(
          "classes: '{}' is not a class of this model (it has {}); use these ids or names", item,
          known));
    }
    ids.push_back(it->first);
  }
  return ids;
}

}  // namespace

YoloLogic::YoloLogic(GstBaseTransform* element) : element_(element) {}

YoloLogic::~YoloLogic() {
  stop();
}

ElementSettings YoloLogic::settings() const {
  return *current_settings();
}

std::shared_ptr<const ElementSettings> YoloLogic::current_settings() const {
  std::lock_guard<std::mutex> lock(settings_mutex_);
  return settings_;
}

void YoloLogic::update_settings(const std::function<void(ElementSettings&)>& change) {
  std::lock_guard<std::mutex> lock(settings_mutex_);
  auto next = std::make_shared<ElementSettings>(*settings_);
  change(*next);
  settings_ = std::move(next);
}

bool YoloLogic::start() {
  const ElementSettings s = settings();
  if (s.model.empty()) {
    GST_ELEMENT_ERROR(element_, RESOURCE, NOT_FOUND, ("No model set"),
                      ("set the model property to a checkpoint (best.pt) or a TorchScript "
                       "export (.torchscript)"));
    return false;
  }
  if (const std::vector<std::string> problems = s.problems(); !problems.empty()) {
    const std::string text = fmt::format("{}", fmt::join(problems, "; "));
    GST_ELEMENT_ERROR(element_, LIBRARY, SETTINGS, ("Invalid property values"),
                      ("%s", text.c_str()));
    return false;
  }
  stream_id_ = s.stream_id.empty() ? std::string(GST_OBJECT_NAME(element_)) : s.stream_id;
  // The endpoint before the model: it answers (/health: "loading model") while a model loads,
  // which takes seconds on a busy machine, so a client can tell a starting element from a dead
  // one.
  if (!start_http(s)) return false;
  announce(Readiness::kLoadingModel, fmt::format("'{}' on {}", s.model, s.device));
  if (!load_model(s)) {
    stop_http();
    return false;
  }
  const std::shared_ptr<Engine> engine_now = model_->engine();
  const Engine& engine = *engine_now;
  producer_ = model_->batcher().add_producer(stream_id_, QueueFullPolicy::kBlock);
  if (http_) {
    batcher_metrics_ =
        http_->metrics().watch_batcher(model_->label(), model_->batcher(), {producer_});
  }
  handoff_offered_ = handed_off_ = false;
  publisher_ = std::make_unique<ResultPublisher>(GST_ELEMENT(element_), stream_id_, http_);
  preprocess_.device = engine.device();
  preprocess_.half = model_->options().half;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flushing_ = stopping_ = false;
    last_flow_ = GST_FLOW_OK;
    qos_earliest_ = GST_CLOCK_TIME_NONE;
    next_frame_ = 0;
    stats_ = {};
    pending_.clear();
    pending_.reserve(2 * static_cast<size_t>(model_->options().batch_size));
  }
  last_detections_.clear();
  nms_cache_ = {};
  input_pool_.clear();  // the model's batch size may differ from the last start's
  slot_pool_.clear();
  output_thread_ = std::thread(&YoloLogic::output_loop, this);
  announce(Readiness::kWaitingForFrames, model_->label());
  GST_INFO_OBJECT(element_, "model '%s' (%s) on %s, %lldx%lld input, stream '%s'", s.model.c_str(),
                  model_->label().c_str(), engine.device().str().c_str(),
                  static_cast<long long>(engine.input_width()),
                  static_cast<long long>(engine.input_height()), stream_id_.c_str());
  return true;
}

bool YoloLogic::load_model(const ElementSettings& s) {
  InstanceOptions io;
  io.model = s.model;
  io.device = s.device;
  io.half = s.half;
  io.bf16 = s.bf16_choice();
  io.batch_size = static_cast<int>(s.batch_size);
  io.batch_timeout = std::chrono::microseconds(s.batch_timeout_us);
  io.check_interval = std::chrono::milliseconds(s.model_check_interval_ms);
  std::string note;
  std::shared_ptr<ModelInstance> model;
  try {
    model = ModelRegistry::process().acquire(s.model_instance_id, io, &note);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, RESOURCE, OPEN_READ, ("Could not load model '%s'", s.model.c_str()),
                      ("%s", e.what()));
    return false;
  }
  if (!note.empty()) GST_WARNING_OBJECT(element_, "%s", note.c_str());
  try {
    parse_classes(s.classes, model->engine()->metadata().names);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, LIBRARY, SETTINGS, ("Invalid classes property"), ("%s", e.what()));
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  model_ = std::move(model);
  return true;
}

bool YoloLogic::start_http(const ElementSettings& s) {
  if (s.http_port == 0) return true;
  try {
    http_ =
        HttpServiceRegistry::process().acquire(s.http_address, s.http_port < 0 ? 0 : s.http_port);
    announce(Readiness::kStarting, {});
    GST_INFO_OBJECT(element_, "detections of '%s' served on http://%s:%d/api/v1",
                    stream_id_.c_str(), http_->address().c_str(), http_->port());
    return true;
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, RESOURCE, OPEN_READ_WRITE,
                      ("Could not serve HTTP on %s:%d", s.http_address.c_str(), s.http_port),
                      ("%s; choose a free http-port (or 0 to turn the endpoint off)", e.what()));
    http_.reset();
    return false;
  }
}

void YoloLogic::stop_http() {
  batcher_metrics_.reset();  // before the batcher it reads
  if (http_) {
    http_->metrics().remove_stream(stream_id_);
    http_->readiness().remove(stream_id_);
  }
  http_.reset();
}

void YoloLogic::announce(Readiness state, const std::string& detail) {
  if (http_) http_->readiness().set(stream_id_, state, detail);
  // Also on the bus, for applications that run the pipeline (yolo-monitor shows it per stream).
  GstStructure* status = gst_structure_new(
      kStatusMessage, "stream-id", G_TYPE_STRING, stream_id_.c_str(), "state", G_TYPE_STRING,
      to_string(state), "detail", G_TYPE_STRING, detail.c_str(), nullptr);
  gst_element_post_message(GST_ELEMENT(element_),
                           gst_message_new_element(GST_OBJECT(element_), status));
}

bool YoloLogic::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (output_thread_.joinable()) output_thread_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.clear();  // their futures are abandoned; the batcher still completes them
    in_progress_ = 0;
  }
  publisher_.reset();
  stop_http();
  release_model();
  have_caps_ = false;
  return true;
}

void YoloLogic::release_model() {
  std::shared_ptr<ModelInstance> model;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    model.swap(model_);
  }
  if (model && producer_ >= 0) model->batcher().remove_producer(producer_);
  producer_ = -1;
}

bool YoloLogic::set_caps(GstCaps* caps) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) {
    GST_WARNING_OBJECT(element_, "caps %" GST_PTR_FORMAT " are not raw video",
                       static_cast<void*>(caps));
    return false;
  }
  const auto format = pixel_format_of(GST_VIDEO_INFO_FORMAT(&info));
  if (!format) return false;  // the pad template keeps other formats out
  if (!frame_size_supported(GST_ELEMENT(element_), *format, info)) return false;
  info_ = info;
  format_ = *format;
  warned_unfit_ = false;
  set_yuv_colorimetry(caps, preprocess_);
  have_caps_ = true;
  GST_DEBUG_OBJECT(element_, "negotiated %s %dx%d", to_string(format_), info.width, info.height);
  return true;
}

bool YoloLogic::should_infer(GstBuffer* buffer, guint64 frame, const ElementSettings& s) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (frame % std::max(1u, s.inference_interval) != 0) {
    ++stats_.skipped_interval;
    return false;
  }
  if (GST_CLOCK_TIME_IS_VALID(qos_earliest_) && gst_base_transform_is_qos_enabled(element_)) {
    const GstClockTime running =
        gst_segment_to_running_time(&element_->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buffer));
    if (GST_CLOCK_TIME_IS_VALID(running) && running < qos_earliest_) {
      ++stats_.skipped_qos;
      GST_DEBUG_OBJECT(element_, "frame %" G_GUINT64_FORMAT " is late: no inference", frame);
      return false;
    }
  }
  return true;
}

namespace {

// Whether a buffer holds a frame of `info`, by GStreamer's own rule for mapping one
// (gst_video_frame_map): a video meta of the same format and at least the caps' size (decoders
// pad, e.g. 1088 rows for 1080), or without one, enough bytes. A smaller frame of the previous
// size after a resolution change fails this whether or not it is inferred, so that none
// travels on under caps that do not describe it.
bool buffer_fits(GstBuffer* buffer, const GstVideoInfo& info) {
  if (const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer)) {
    return meta->format == GST_VIDEO_INFO_FORMAT(&info) &&
           meta->width >= static_cast<guint>(GST_VIDEO_INFO_WIDTH(&info)) &&
           meta->height >= static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&info));
  }
  return gst_buffer_get_size(buffer) >= GST_VIDEO_INFO_SIZE(&info);
}

}  // namespace

GstFlowReturn YoloLogic::drop_unfit(GstBuffer* buffer) {
  // One frame that does not fit must not end the stream (a camera lives for months): it is
  // dropped, counted, and named once per caps.
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.unfit;
    first = !std::exchange(warned_unfit_, true);
  }
  if (first) {
    GST_ELEMENT_WARNING(
        element_, STREAM, FAILED, ("A video frame that does not fit its caps was dropped"),
        ("buffer of %" G_GSIZE_FORMAT " bytes does not fit %s %dx%d (a frame of another size "
         "after a resolution change, usually from a leaky queue upstream; stats counts them as "
         "'unfit')",
         gst_buffer_get_size(buffer), to_string(format_), info_.width, info_.height));
  }
  return GST_FLOW_OK;
}

GstFlowReturn YoloLogic::submit(GstBuffer* raw) {
  BufferPtr buffer(raw);
  const std::shared_ptr<const ElementSettings> settings = current_settings();
  const ElementSettings& s = *settings;
  if (!have_caps_ || !model_) return GST_FLOW_NOT_NEGOTIATED;
  if (!buffer_fits(buffer.get(), info_)) return drop_unfit(buffer.get());
  Pending p;
  const Clock::time_point entered = Clock::now();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const size_t limit = 2 * static_cast<size_t>(model_->options().batch_size);
    cv_.wait(lock, [&] {
      return flushing_ || last_flow_ != GST_FLOW_OK ||
             pending_.size() + static_cast<size_t>(in_progress_) < limit;
    });
    if (flushing_) return GST_FLOW_FLUSHING;
    if (last_flow_ != GST_FLOW_OK) return last_flow_;
    p.frame = next_frame_++;
    ++stats_.frames;
  }
  p.info = info_;
  p.format = format_;
  p.arrived = Clock::now();
  p.infer = should_infer(buffer.get(), p.frame, s);
  if (p.infer) {
    MappedFrame mapped(&info_, buffer.get(), GST_MAP_READ);
    if (!mapped.mapped) return drop_unfit(buffer.get());  // a meta whose planes do not fit
    // The current model decides the input size; after a hot swap it may differ.
    p.engine = model_->engine();
    preprocess_.letterbox = p.engine->letterbox_options(s.rect);
    try {
      prepare_input_shape(p.engine);
      const SerialTorchOps serial;  // the cores belong to the batcher's thread (the model)
      torch::Tensor input = prepare_input(frame_view_of(mapped.frame, format_), p);
      p.result = free_slot();
      model_->batcher().submit(producer_, std::move(input), p.result);
    } catch (const std::exception& e) {
      GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Could not prepare a frame for the model"),
                        ("%s", e.what()));
      return GST_FLOW_ERROR;
    }
  }
  p.buffer = std::move(buffer);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (flushing_) return GST_FLOW_FLUSHING;
    ++stats_.timed_in;
    stats_.backpressure_us += micros(p.arrived - entered);
    stats_.preprocess_us += micros(Clock::now() - p.arrived);
    pending_.push_back(std::move(p));
  }
  cv_.notify_all();
  return GST_FLOW_OK;
}

torch::Tensor YoloLogic::prepare_input(const FrameView& frame, Pending& p) {
  if (preprocess_.device.is_cpu() && !preprocess_.half) {
    // Into a pooled tensor, with the preprocessor's buffers: no allocation per frame.
    const LetterboxTransform t =
        compute_letterbox(frame.height, frame.width, preprocess_.letterbox);
    torch::Tensor input = free_input(t.out_height, t.out_width);
    p.transform = cpu_preprocess_.run(frame, preprocess_, input.data_ptr<float>());
    return input;
  }
  PreprocessedBatch batch = preprocess_frames_for_device({frame}, preprocess_);
  p.transform = batch.transforms.front();
  return batch.input[0];
}

size_t YoloLogic::pool_size() const {
  // Frames in flight (2 x batch) plus one batch that the batcher may still hold for a moment
  // after delivering it: a pool this size never runs dry, so it never grows while streaming.
  return 3 * static_cast<size_t>(model_->options().batch_size);
}

torch::Tensor YoloLogic::free_input(int64_t height, int64_t width) {
  if (input_pool_.empty() || input_pool_.front().size(1) != height ||
      input_pool_.front().size(2) != width) {
    // A new input size (the first frame, new caps, a swapped model): a pool of that size.
    input_pool_.clear();
    for (size_t i = 0; i < pool_size(); ++i)
      input_pool_.push_back(torch::empty({3, height, width}));
  }
  // Free: the pool holds the only reference (the batcher lets go once it has run the frame).
  for (const torch::Tensor& t : input_pool_)
    if (t.use_count() == 1) return t;
  input_pool_.push_back(torch::empty({3, height, width}));
  return input_pool_.back();
}

std::shared_ptr<ResultSlot> YoloLogic::free_slot() {
  if (slot_pool_.empty())
    for (size_t i = 0; i < pool_size(); ++i) slot_pool_.push_back(std::make_shared<ResultSlot>());
  for (const std::shared_ptr<ResultSlot>& slot : slot_pool_)
    if (slot.use_count() == 1) return slot;
  slot_pool_.push_back(std::make_shared<ResultSlot>());
  return slot_pool_.back();
}

void YoloLogic::prepare_input_shape(const std::shared_ptr<Engine>& engine) {
  const LetterboxTransform t = compute_letterbox(info_.height, info_.width, preprocess_.letterbox);
  if (prepared_engine_.lock() == engine &&
      prepared_size_ == std::make_pair(t.out_height, t.out_width))
    return;
  // A new size is traced and prepared here, once, rather than on the batcher's thread where
  // every stream sharing the model would wait for it.
  if (t.out_height != engine->input_height() || t.out_width != engine->input_width())
    engine->prepare_shape(t.out_height, t.out_width);
  prepared_engine_ = engine;
  prepared_size_ = {t.out_height, t.out_width};
  GST_INFO_OBJECT(element_, "stream '%s': %dx%d frames run at a %dx%d input (%s)",
                  stream_id_.c_str(), info_.width, info_.height, t.out_width, t.out_height,
                  preprocess_.letterbox.auto_stride ? "rect" : "square");
}

bool YoloLogic::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto drained = [&] {
    return flushing_ || stopping_ || last_flow_ != GST_FLOW_OK ||
           (pending_.empty() && in_progress_ == 0);
  };
  while (!drained()) {
    // Partial batches run now rather than at batch-timeout: nothing more is coming before this
    // event. Repeated, because frames beyond one batch are queued behind the first.
    lock.unlock();
    if (model_) model_->batcher().flush();
    lock.lock();
    cv_.wait_for(lock, std::chrono::milliseconds(10), drained);
  }
  return !flushing_;
}

void YoloLogic::flush_start() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flushing_ = true;
    pending_.clear();
  }
  cv_.notify_all();
}

void YoloLogic::flush_stop() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return in_progress_ == 0 || stopping_; });
    pending_.clear();
    flushing_ = false;
    last_flow_ = GST_FLOW_OK;
    qos_earliest_ = GST_CLOCK_TIME_NONE;
  }
  cv_.notify_all();
}

void YoloLogic::on_qos(GstClockTimeDiff diff, GstClockTime timestamp) {
  std::lock_guard<std::mutex> lock(mutex_);
  // As GstBaseTransform: frames whose running time is before timestamp + diff are late.
  if (diff > 0 || static_cast<GstClockTimeDiff>(timestamp) + diff > 0)
    qos_earliest_ = static_cast<GstClockTime>(static_cast<GstClockTimeDiff>(timestamp) + diff);
  else
    qos_earliest_ = GST_CLOCK_TIME_NONE;
}

GstClockTime YoloLogic::added_latency() const {
  // Queries come from any thread: read the running model under the lock (start/stop swap it).
  std::shared_ptr<ModelInstance> model;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    model = model_;
  }
  const ElementSettings s = settings();
  const unsigned batch = model ? static_cast<unsigned>(model->options().batch_size) : s.batch_size;
  const auto timeout_us = model ? static_cast<guint64>(model->options().batch_timeout.count())
                                : static_cast<guint64>(s.batch_timeout_us);
  return batch > 1 ? timeout_us * GST_USECOND : 0;
}

GstStructure* YoloLogic::stats_structure() const {
  ElementStats e;
  std::shared_ptr<ModelInstance> model;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    e = stats_;
    model = model_;
  }
  InstanceStats m;
  if (model) m = model->stats();
  return gst_structure_new(
      "yolo-stats", "frames", G_TYPE_UINT64, e.frames, "inferred", G_TYPE_UINT64, e.inferred,
      "skipped-interval", G_TYPE_UINT64, e.skipped_interval, "skipped-qos", G_TYPE_UINT64,
      e.skipped_qos, "dropped", G_TYPE_UINT64, e.dropped_by_batcher, "unfit", G_TYPE_UINT64,
      e.unfit, "model-batches", G_TYPE_UINT64, m.batches, "model-frames", G_TYPE_UINT64, m.frames,
      "largest-batch", G_TYPE_UINT64, m.largest_batch, "model-swaps", G_TYPE_UINT64, m.swaps,
      "mean-backpressure-us", G_TYPE_DOUBLE, mean(e.backpressure_us, e.timed_in),
      "mean-preprocess-us", G_TYPE_DOUBLE, mean(e.preprocess_us, e.timed_in), "mean-result-wait-us",
      G_TYPE_DOUBLE, mean(e.result_wait_us, e.timed_out), "mean-postprocess-us", G_TYPE_DOUBLE,
      mean(e.postprocess_us, e.timed_out), "mean-push-us", G_TYPE_DOUBLE,
      mean(e.push_us, e.timed_out), "model-mean-queue-wait-us", G_TYPE_DOUBLE, m.mean_queue_wait_us,
      "model-mean-inference-us", G_TYPE_DOUBLE, m.mean_inference_us, "model-mean-batch",
      G_TYPE_DOUBLE, m.batches ? static_cast<double>(m.frames) / m.batches : 0.0, nullptr);
}

const NmsOptions& YoloLogic::nms_options_for(const std::shared_ptr<const ElementSettings>& s,
                                             const std::shared_ptr<Engine>& engine) {
  if (nms_cache_.settings == s && nms_cache_.engine == engine) return nms_cache_.options;
  NmsOptions o;
  o.conf = static_cast<float>(s->conf);
  o.iou = static_cast<float>(s->iou);
  o.max_det = s->max_det;
  try {
    o.classes = parse_classes(s->classes, engine->metadata().names);
  } catch (const std::exception& e) {
    GST_WARNING_OBJECT(element_, "%s; keeping every class", e.what());
  }
  nms_cache_ = {s, engine, std::move(o)};
  return nms_cache_.options;
}

void YoloLogic::output_loop() {
  name_this_thread("yolo-out");
  const SerialTorchOps serial;  // NMS is light; the cores belong to the batcher's thread
  // This thread frees model outputs whenever it holds the last reference, and LibTorch sets up
  // a thread's memory-reporting state on its first free: done now, not in the middle of a
  // stream (test_element_allocations).
  torch::empty({1});
  for (;;) {
    Pending p;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || (!flushing_ && !pending_.empty()); });
      if (stopping_) return;
      p = std::move(pending_.front());
      pending_.erase(pending_.begin());
      ++in_progress_;
    }
    const GstFlowReturn flow = finish(p, current_settings());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_progress_;
      if (flow != GST_FLOW_OK && last_flow_ == GST_FLOW_OK && !flushing_) last_flow_ = flow;
    }
    cv_.notify_all();
  }
}

bool YoloLogic::wait_detections(Pending& p, const std::shared_ptr<const ElementSettings>& s,
                                double& waited_us) {
  // Bounded waits so that flushing and stopping are noticed promptly; the batcher itself always
  // delivers within batch-timeout plus one model call.
  const Clock::time_point waiting = Clock::now();
  while (!p.result->wait_for(std::chrono::milliseconds(20))) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (flushing_ || stopping_) return false;
  }
  waited_us = micros(Clock::now() - waiting);
  detections_.clear();
  try {
    torch::Tensor row = p.result->take();
    // A CPU model's float row is read in place; a GPU's (or FP16) row comes over first.
    if (!row.device().is_cpu() || row.scalar_type() != torch::kFloat || !row.is_contiguous())
      row = row.to(torch::kCPU, torch::kFloat).contiguous();
    const bool end2end = p.engine->end2end();
    if (row.dim() != 2)
      throw std::runtime_error(
          fmt::format("the model's output row has {} dimensions, not 2", row.dim()));
    std::vector<float>& rows =
        nms_.run(row.data_ptr<float>(), end2end ? row.size(1) : row.size(0),
                 end2end ? row.size(0) : row.size(1), nms_options_for(s, p.engine), end2end);
    rows_to_source(rows.data(), nms_.count(), 6, p.transform);
    detections_from_rows(rows.data(), nms_.count(), p.engine->metadata().names, detections_);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.inferred;
    return true;
  } catch (const FrameDropped& e) {
    // Only when the batcher goes away under the frame; pass the frame on without detections.
    GST_DEBUG_OBJECT(element_, "frame %" G_GUINT64_FORMAT ": %s", p.frame, e.what());
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.dropped_by_batcher;
    return true;
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Inference failed"), ("%s", e.what()));
    std::lock_guard<std::mutex> lock(mutex_);
    last_flow_ = GST_FLOW_ERROR;
    return false;
  }
}

GstFlowReturn YoloLogic::finish(Pending& p,
                                const std::shared_ptr<const ElementSettings>& settings) {
  const ElementSettings& s = *settings;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (flushing_) return GST_FLOW_FLUSHING;
    if (last_flow_ != GST_FLOW_OK) return last_flow_;  // downstream refused: drop, don't push
  }
  if (!handoff_offered_) offer_publishing(s);
  double waited_us = 0;
  const Clock::time_point started = Clock::now();
  if (p.infer && !wait_detections(p, settings, waited_us)) {
    std::lock_guard<std::mutex> lock(mutex_);
    return flushing_ || stopping_ ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;
  }
  const std::vector<Detection>& detections = detections_;
  GstBuffer* buffer = gst_buffer_make_writable(p.buffer.release());
  p.buffer.reset(buffer);
  const int width = GST_VIDEO_INFO_WIDTH(&p.info), height = GST_VIDEO_INFO_HEIGHT(&p.info);
  // Every frame says whether the detector looked at it, so a tracker downstream can tell an
  // empty result from a skipped frame.
  mark_inference(buffer, p.infer, p.frame);
  if (p.infer) {
    attach_roi_metas(buffer, detections, width, height);
    // Drawn as the metas carry them, so that draw=true equals `yolo ! yolooverlay`.
    as_roi_boxes(detections, width, height, last_detections_);
  }
  if (s.draw && !last_detections_.empty()) {
    MappedFrame mapped(&p.info, buffer, GST_MAP_READWRITE);
    if (mapped.mapped) {
      draw_detections(mapped.frame, p.format, last_detections_, {});
    } else {
      GST_WARNING_OBJECT(element_, "frame %" G_GUINT64_FORMAT " could not be mapped for drawing",
                         p.frame);
    }
  }
  if (p.infer) publish(p, buffer, detections, s);
  const Clock::time_point pushing = Clock::now();
  const GstFlowReturn flow = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(element_), p.buffer.release());
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.timed_out;
  stats_.result_wait_us += waited_us;
  stats_.postprocess_us += micros(pushing - started) - waited_us;
  stats_.push_us += micros(Clock::now() - pushing);
  return flow;
}

void YoloLogic::publish(Pending& p, GstBuffer* buffer, const std::vector<Detection>& detections,
                        const ElementSettings& s) {
  if (!handed_off_) {
    publisher_->publish(buffer, p.info, p.format, p.frame, detections,
                        {s.snapshot_interval_ms, s.post_messages});
  }
  if (http_) http_->metrics().frame_done(stream_id_, Clock::now() - p.arrived);
}

void YoloLogic::offer_publishing(const ElementSettings& s) {
  handoff_offered_ = true;
  if (!http_ && !s.post_messages) return;  // nothing to hand over
  PublishHandoff offer;
  offer.stream_id = stream_id_;
  if (http_) {
    offer.http_address = http_->address();
    offer.http_port = http_->port();
  }
  offer.options = {s.snapshot_interval_ms, s.post_messages};
  GstQuery* query = new_handoff_query(offer);
  handed_off_ =
      gst_pad_peer_query(GST_BASE_TRANSFORM_SRC_PAD(element_), query) && handoff_taken(query);
  gst_query_unref(query);
  if (handed_off_) {
    GST_INFO_OBJECT(element_, "a tracker downstream publishes the results of '%s'",
                    stream_id_.c_str());
  }
}

}  // namespace yolo::gst
