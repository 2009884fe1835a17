// StreamSupervisor: one thread with its own GMainContext per stream. Everything that touches the
// pipeline's lifecycle (build, bus messages, watchdog ticks, teardown, retry timers) runs on that
// thread; the appsink callback (a streaming thread) only records frames under the mutex.
#include "yolo/monitor/stream_supervisor.h"

#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "yolo/gst/detection_meta.h"
#include "yolo/media/frame_colours.h"
#include "yolo/media/gst_handles.h"
#include "yolo/media/leaky_queue.h"
#include "yolo/monitor/pipeline_description.h"

namespace yolo::monitor {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

using media::GMainContextPtr;
using media::GMainLoopPtr;
using media::GstMessagePtr;
using media::GstPadPtr;
using media::GstSamplePtr;
using ElementPtr = media::GstElementPtr;
using SourcePtr = media::GSourcePtr;

bool from_yolo_element(GstMessage* message) {
  GstObject* src = GST_MESSAGE_SRC(message);
  if (!src || !GST_IS_ELEMENT(src)) return false;
  GstElementFactory* factory = gst_element_get_factory(GST_ELEMENT(src));
  return factory && std::string(gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory))) == "yolo";
}

// The error's text; for the `yolo` element with its details, which are ours and name the fix
// (other elements' details are GStreamer internals, logged at debug level).
std::string error_text(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  std::string text = fmt::format("{}: {}", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                                 error ? error->message : "unknown error");
  if (debug && from_yolo_element(message))
    text += fmt::format(" ({})", debug);
  else if (debug)
    spdlog::debug("gstreamer error details: {}", debug);
  g_clear_error(&error);
  g_free(debug);
  return text;
}

// Errors no retry can fix: the `yolo` element refusing its settings (a value out of range, a
// class the model lacks) or its model file (missing, unreadable, not a model). A camera outage
// is never one of these.
bool is_configuration_error(GstMessage* message) {
  if (!from_yolo_element(message)) return false;
  GError* error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  const bool permanent =
      error &&
      ((error->domain == GST_LIBRARY_ERROR && error->code == GST_LIBRARY_ERROR_SETTINGS) ||
       (error->domain == GST_RESOURCE_ERROR && (error->code == GST_RESOURCE_ERROR_NOT_FOUND ||
                                                error->code == GST_RESOURCE_ERROR_OPEN_READ)));
  g_clear_error(&error);
  return permanent;
}

double seconds(milliseconds d) {
  return std::chrono::duration<double>(d).count();
}

// The name of the element that holds `pad`, for messages.
std::string owner_name(GstPad* pad) {
  GstObject* parent = GST_OBJECT_PARENT(pad);
  return parent ? GST_OBJECT_NAME(parent) : GST_OBJECT_NAME(pad);
}

// Makes `elements` from their typed settings, adds them to `bin` and links them, in order,
// between `sink` and the pad that feeds it (each needs an always sink and src pad, as filters
// have). The problem, or "" when they are in place.
std::string link_in_front_of(GstBin* bin, GstElement* sink,
                             const std::vector<ElementSpec>& elements) {
  if (elements.empty()) return "";
  GstPadPtr sink_pad(gst_element_get_static_pad(sink, "sink"));
  GstPadPtr from(sink_pad ? gst_pad_get_peer(sink_pad.get()) : nullptr);
  if (!from) {
    return fmt::format("nothing is linked to \"{}\" to put the inference in front of",
                       GST_ELEMENT_NAME(sink));
  }
  gst_pad_unlink(from.get(), sink_pad.get());
  std::string error;
  for (const ElementSpec& spec : elements) {
    ElementPtr element = make_element(spec, error);
    if (!element) return error;
    gst_bin_add(bin, element.get());  // the bin holds its own reference
    GstPadPtr to(gst_element_get_static_pad(element.get(), "sink"));
    if (!to || gst_pad_link(from.get(), to.get()) != GST_PAD_LINK_OK)
      return fmt::format("could not link {} to {}", owner_name(from.get()),
                         GST_ELEMENT_NAME(element.get()));
    from.reset(gst_element_get_static_pad(element.get(), "src"));
    if (!from) return fmt::format("element \"{}\" has no src pad", spec.factory);
  }
  if (gst_pad_link(from.get(), sink_pad.get()) != GST_PAD_LINK_OK)
    return fmt::format("could not link {} to {}", owner_name(from.get()), GST_ELEMENT_NAME(sink));
  return "";
}

}  // namespace

const char* to_string(StreamState state) {
  switch (state) {
    case StreamState::kStarting:
      return "starting";
    case StreamState::kRunning:
      return "running";
    case StreamState::kStalled:
      return "stalled";
    case StreamState::kReconnecting:
      return "reconnecting";
    case StreamState::kFailed:
      return "failed";
    case StreamState::kStopped:
      return "stopped";
  }
  return "unknown";
}

SupervisorOptions supervisor_options(const SupervisionConfig& config) {
  SupervisorOptions o;
  o.stall_timeout = config.stall_timeout;
  o.start_timeout = config.start_timeout;
  o.backoff = {config.backoff.initial, config.backoff.max, config.backoff.jitter};
  o.max_retries = config.max_retries;
  return o;
}

nlohmann::json to_json(const StreamStats& s) {
  nlohmann::json j = {{"state", to_string(s.state)},
                      {"retries", s.retries},
                      {"failures_in_a_row", s.failures_in_a_row},
                      {"last_error", nullptr},
                      {"activity", nullptr},
                      {"frames", s.frames},
                      {"source_frames", s.source_frames},
                      {"fps", s.fps},
                      {"last_frame_age_s", nullptr},
                      {"next_attempt_in_s", nullptr}};
  if (!s.last_error.empty()) j["last_error"] = s.last_error;
  if (!s.activity.empty()) j["activity"] = s.activity;
  if (s.last_frame_age) j["last_frame_age_s"] = seconds(*s.last_frame_age);
  if (s.next_attempt_in) j["next_attempt_in_s"] = seconds(*s.next_attempt_in);
  return j;
}

struct StreamSupervisor::Impl {
  Impl(std::string id_, StreamPipeline spec_, SupervisorOptions options_, Callbacks callbacks_,
       Backoff::RandomSource random)
      : id(std::move(id_)),
        spec(std::move(spec_)),
        options(options_),
        callbacks(std::move(callbacks_)),
        backoff(options.backoff, std::move(random)) {}

  // --- supervisor thread ---
  void run();
  void build();
  void teardown();
  void fail(const std::string& reason, StreamState next_state);
  void fail_with(GstMessage* error);  // kFailed for configuration errors, else a rebuild
  // "source 'rtsp://...': WHAT; what to check" when the source is known.
  std::string about_source(const std::string& what) const;
  void schedule_retry(milliseconds delay);
  void tick();
  bool on_bus_message(GstMessage* message);
  // --- streaming thread ---
  void on_frame(GstSample* sample);
  // --- any thread ---
  void set_state(StreamState s, const std::string& reason);

  // The `yolo` element's start-up messages arrive while gst_element_set_state() is still loading
  // the model on this thread, so they are read as they are posted, not from the bus watch.
  static GstBusSyncReply sync_cb(GstBus*, GstMessage* m, gpointer self) {
    const GstStructure* s = gst_message_get_structure(m);
    if (GST_MESSAGE_TYPE(m) != GST_MESSAGE_ELEMENT || !s ||
        !gst_structure_has_name(s, gst::kStatusMessage))
      return GST_BUS_PASS;
    auto* impl = static_cast<Impl*>(self);
    const char* state = gst_structure_get_string(s, "state");
    const char* detail = gst_structure_get_string(s, "detail");
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->activity = state ? state : "";
    impl->activity_detail = detail ? detail : "";
    return GST_BUS_DROP;
  }
  static gboolean bus_cb(GstBus*, GstMessage* m, gpointer self) {
    return static_cast<Impl*>(self)->on_bus_message(m) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
  }
  static GstPadProbeReturn source_frame_cb(GstPad*, GstPadProbeInfo*, gpointer self) {
    auto* impl = static_cast<Impl*>(self);
    std::lock_guard<std::mutex> lock(impl->mutex);
    ++impl->source_frames;
    impl->last_source_frame = Clock::now();
    return GST_PAD_PROBE_OK;
  }
  static GstFlowReturn new_sample_cb(GstAppSink* sink, gpointer self) {
    GstSamplePtr sample(gst_app_sink_pull_sample(sink));
    if (sample) static_cast<Impl*>(self)->on_frame(sample.get());
    return GST_FLOW_OK;
  }

  const std::string id;
  const StreamPipeline spec;
  const SupervisorOptions options;
  const Callbacks callbacks;
  Backoff backoff;  // supervisor thread only

  GMainContextPtr context{g_main_context_new()};
  GMainLoopPtr loop{g_main_loop_new(context.get(), FALSE)};
  std::thread thread;
  std::mutex lifecycle_mutex;  // start()/stop()

  // The current attempt (supervisor thread only).
  ElementPtr pipeline;
  SourcePtr bus_source;
  SourcePtr retry_source;
  SourcePtr tick_source;
  Clock::time_point attempt_started;
  bool stopping = false;

  // Shared with the streaming thread and stats().
  mutable std::mutex mutex;
  StreamState state = StreamState::kStopped;
  std::uint64_t retries = 0;
  int failures_in_a_row = 0;
  std::string last_error;
  std::uint64_t frames = 0;
  std::uint64_t source_frames = 0;  // into the leaky queue, when the pipeline has one
  std::optional<Clock::time_point> last_source_frame;
  bool attempt_has_frame = false;
  std::string activity, activity_detail;  // the attempt's start-up, until its first frame
  std::optional<Clock::time_point> last_frame;
  std::optional<Clock::time_point> next_attempt;
  Clock::time_point fps_window_start;
  std::uint64_t fps_window_frames = 0;
  double fps = 0;
};

void StreamSupervisor::Impl::set_state(StreamState s, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (state == s) return;
    state = s;
  }
  if (s == StreamState::kFailed || s == StreamState::kReconnecting || s == StreamState::kStalled) {
    spdlog::warn("stream {}: {} ({})", id, to_string(s), reason);
  } else {
    spdlog::info("stream {}: {} ({})", id, to_string(s), reason);
  }
  if (callbacks.on_state) callbacks.on_state(s, reason);
}

void StreamSupervisor::Impl::run() {
  g_main_context_push_thread_default(context.get());
  // The watchdog ticks several times per timeout, so a stall is seen at most a quarter of the
  // timeout late; bounded to keep idle wake-ups cheap and short timeouts (tests) accurate.
  const milliseconds period = std::clamp(std::min(options.stall_timeout, options.start_timeout) / 4,
                                         milliseconds(10), milliseconds(1000));
  tick_source.reset(g_timeout_source_new(static_cast<guint>(period.count())));
  g_source_set_callback(
      tick_source.get(),
      [](gpointer self) -> gboolean {
        static_cast<Impl*>(self)->tick();
        return G_SOURCE_CONTINUE;
      },
      this, nullptr);
  g_source_attach(tick_source.get(), context.get());
  build();
  g_main_loop_run(loop.get());
  tick_source.reset();
  retry_source.reset();
  teardown();
  g_main_context_pop_thread_default(context.get());
}

void StreamSupervisor::Impl::build() {
  retry_source.reset();
  {
    std::lock_guard<std::mutex> lock(mutex);
    attempt_has_frame = false;
    activity.clear();
    activity_detail.clear();
    next_attempt.reset();
  }
  spdlog::debug("stream {}: building {}", id, spec.description);
  GError* error = nullptr;
  ElementPtr element(
      gst_parse_launch_full(spec.launch.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &error));
  if (!element || error) {
    const std::string why = error ? error->message : "unknown error";
    g_clear_error(&error);
    return fail(fmt::format("pipeline description does not parse: {}", why),
                StreamState::kReconnecting);
  }
  ElementPtr sink;
  if (GST_IS_BIN(element.get())) {
    sink.reset(gst_bin_get_by_name(GST_BIN(element.get()), kAppSinkName));
  }
  if (!sink || !GST_IS_APP_SINK(sink.get())) {
    return fail(fmt::format("the pipeline has no appsink named \"{}\"; end the description with "
                            "appsink name={}",
                            kAppSinkName, kAppSinkName),
                StreamState::kReconnecting);
  }
  // Full-range MP4 files are read as full range (frame_colours.h says why this is needed).
  media::repair_container_range(element.get(), spec.source_uri);
  const std::string not_linked =
      link_in_front_of(GST_BIN(element.get()), sink.get(), spec.inference);
  if (!not_linked.empty()) {
    return fail(fmt::format("the pipeline cannot be built: {}", not_linked),
                StreamState::kReconnecting);
  }
  if (ElementPtr queue{gst_bin_get_by_name(GST_BIN(element.get()), kLeakyQueueName)}) {
    // A camera that changes resolution: no frame may reach the element after the next one's
    // caps (leaky_queue.h says how a leaky queue does that).
    media::keep_caps_with_frames(queue.get());
    GstPadPtr pad(gst_element_get_static_pad(queue.get(), "sink"));
    if (pad) {
      gst_pad_add_probe(pad.get(), GST_PAD_PROBE_TYPE_BUFFER, &Impl::source_frame_cb, this,
                        nullptr);
    }
  }
  GstAppSinkCallbacks sink_callbacks{};
  sink_callbacks.new_sample = &Impl::new_sample_cb;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &sink_callbacks, this, nullptr);

  media::GstBusPtr bus(gst_element_get_bus(element.get()));
  gst_bus_set_sync_handler(bus.get(), &Impl::sync_cb, this, nullptr);
  bus_source.reset(gst_bus_create_watch(bus.get()));
  g_source_set_callback(bus_source.get(), G_SOURCE_FUNC(&Impl::bus_cb), this, nullptr);
  g_source_attach(bus_source.get(), context.get());
  pipeline = std::move(element);
  if (callbacks.on_pipeline) callbacks.on_pipeline(pipeline.get());

  const GstStateChangeReturn started = gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  // Counted from here: a model that loads during the state change does not eat start_timeout.
  attempt_started = Clock::now();
  if (started == GST_STATE_CHANGE_FAILURE) {
    // The reason is usually an ERROR message already on the bus; take it from there.
    GstMessagePtr message(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR));
    if (message)
      fail_with(message.get());
    else
      fail("the pipeline refused to start (state change failed)", StreamState::kReconnecting);
  }
}

void StreamSupervisor::Impl::teardown() {
  if (!pipeline) return;
  // Setting NULL stops and joins every streaming thread, so no appsink callback runs afterwards.
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  // The bus may outlive the pipeline (a message holding it): it must not call back into this.
  media::GstBusPtr bus(gst_element_get_bus(pipeline.get()));
  gst_bus_set_sync_handler(bus.get(), nullptr, nullptr, nullptr);
  bus_source.reset();
  pipeline.reset();
  // The attempt's start-up ("loading model", ...) ended with it: a failed, reconnecting or
  // stopped stream must not go on reporting it.
  std::lock_guard<std::mutex> lock(mutex);
  activity.clear();
  activity_detail.clear();
}

void StreamSupervisor::Impl::fail_with(GstMessage* error) {
  // The `yolo` element's errors name their fix; any other element's are about the source.
  fail(from_yolo_element(error) ? error_text(error) : about_source(error_text(error)),
       is_configuration_error(error) ? StreamState::kFailed : StreamState::kReconnecting);
}

std::string StreamSupervisor::Impl::about_source(const std::string& what) const {
  if (options.source.empty()) return what;
  return fmt::format("source '{}': {}{}{}", options.source, what,
                     options.source_hint.empty() ? "" : "; ", options.source_hint);
}

void StreamSupervisor::Impl::fail(const std::string& reason, StreamState next_state) {
  teardown();
  if (stopping) return;
  if (next_state == StreamState::kFailed) {  // permanent: retrying cannot help
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++failures_in_a_row;
      last_error = reason;
    }
    set_state(StreamState::kFailed,
              fmt::format("{}; a configuration error, not retried: fix it and reload the "
                          "configuration (SIGHUP) or add the stream again",
                          reason));
    return;
  }
  bool succeeded;
  int failures;
  {
    std::lock_guard<std::mutex> lock(mutex);
    succeeded = attempt_has_frame;
    failures = ++failures_in_a_row;
    last_error = reason;
  }
  if (succeeded) backoff.reset();  // this attempt delivered frames: start over with short delays
  if (options.max_retries > 0 && failures > options.max_retries) {
    set_state(StreamState::kFailed,
              fmt::format("{}; gave up after {} failed attempts in a row (max_retries {})", reason,
                          failures, options.max_retries));
    return;
  }
  const milliseconds delay = backoff.next();
  {
    std::lock_guard<std::mutex> lock(mutex);
    next_attempt = Clock::now() + delay;
  }
  set_state(next_state, fmt::format("{}; rebuilding in {:.1f} s", reason, seconds(delay)));
  schedule_retry(delay);
}

void StreamSupervisor::Impl::schedule_retry(milliseconds delay) {
  retry_source.reset(g_timeout_source_new(static_cast<guint>(delay.count())));
  g_source_set_callback(
      retry_source.get(),
      [](gpointer p) -> gboolean {
        auto* self = static_cast<Impl*>(p);
        {
          std::lock_guard<std::mutex> lock(self->mutex);
          ++self->retries;
        }
        // build() replaces retry_source, which destroys this source: say so to GLib as well.
        self->build();
        return G_SOURCE_REMOVE;
      },
      this, nullptr);
  g_source_attach(retry_source.get(), context.get());
}

void StreamSupervisor::Impl::tick() {
  if (!pipeline) return;
  const auto now = Clock::now();
  bool has_frame;
  std::optional<Clock::time_point> last, last_source;
  {
    std::lock_guard<std::mutex> lock(mutex);
    has_frame = attempt_has_frame;
    last = last_frame;
    last_source = last_source_frame;
  }
  if (!has_frame && now - attempt_started > options.start_timeout) {
    fail(about_source(fmt::format("no frame within start_timeout ({:.1f} s) of starting",
                                  seconds(options.start_timeout))),
         StreamState::kReconnecting);
  } else if (has_frame && last && now - *last > options.stall_timeout) {
    // Frames still entering the leaky queue mean the source is fine and what follows it (the
    // model, or the owner's sample callback) is blocked: say so, it needs another fix.
    const bool source_alive = last_source && *last_source > *last;
    fail(fmt::format("no frame for stall_timeout ({:.1f} s){}", seconds(options.stall_timeout),
                     source_alive ? "; the source still delivers frames, so the inference or the "
                                    "sample callback is blocked"
                                  : ""),
         StreamState::kStalled);
  }
}

bool StreamSupervisor::Impl::on_bus_message(GstMessage* message) {
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ERROR:
      fail_with(message);
      return false;  // the watch belonged to the pipeline just torn down
    case GST_MESSAGE_EOS:
      fail("end of stream", StreamState::kReconnecting);
      return false;
    case GST_MESSAGE_WARNING: {
      GError* error = nullptr;
      gst_message_parse_warning(message, &error, nullptr);
      spdlog::warn("stream {}: {}: {}", id, GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                   error ? error->message : "warning");
      g_clear_error(&error);
      return true;
    }
    case GST_MESSAGE_ELEMENT: {
      // rtspsrc's RTCP timeout: the session is dead even though no ERROR follows.
      const GstStructure* s = gst_message_get_structure(message);
      if (s && gst_structure_has_name(s, "GstRTSPSrcTimeout")) {
        fail(about_source("RTSP session timed out (no RTCP from the camera)"),
             StreamState::kReconnecting);
        return false;
      }
      return true;
    }
    default:
      return true;
  }
}

void StreamSupervisor::Impl::on_frame(GstSample* sample) {
  const auto now = Clock::now();
  bool first;
  {
    std::lock_guard<std::mutex> lock(mutex);
    first = !attempt_has_frame;
    attempt_has_frame = true;
    if (first) {
      failures_in_a_row = 0;
      activity.clear();
      activity_detail.clear();
    }
    ++frames;
    last_frame = now;
    if (fps_window_frames == 0 && fps_window_start == Clock::time_point()) fps_window_start = now;
    ++fps_window_frames;
    const auto elapsed = now - fps_window_start;
    if (elapsed >= options.fps_window) {
      fps = static_cast<double>(fps_window_frames) / std::chrono::duration<double>(elapsed).count();
      fps_window_start = now;
      fps_window_frames = 0;
    }
  }
  if (first) set_state(StreamState::kRunning, "first frame");
  if (callbacks.on_sample) callbacks.on_sample(sample);
}

StreamSupervisor::StreamSupervisor(std::string id, StreamPipeline pipeline,
                                   SupervisorOptions options, Callbacks callbacks,
                                   Backoff::RandomSource random) {
  if (options.stall_timeout.count() <= 0 || options.start_timeout.count() <= 0) {
    throw std::invalid_argument("stream " + id + ": stall_timeout and start_timeout must be > 0");
  }
  if (options.max_retries < 0) {
    throw std::invalid_argument("stream " + id + ": max_retries must be >= 0 (0 = forever)");
  }
  if (options.fps_window.count() <= 0) {
    throw std::invalid_argument("stream " + id + ": fps_window must be > 0");
  }
  impl_ = std::make_unique<Impl>(std::move(id), std::move(pipeline), options, std::move(callbacks),
                                 std::move(random));
}

StreamSupervisor::~StreamSupervisor() {
  stop();
}

void StreamSupervisor::start() {
  std::lock_guard<std::mutex> lock(impl_->lifecycle_mutex);
  if (impl_->thread.joinable() || impl_->stopping) {
    throw std::logic_error("stream " + impl_->id + ": start() called twice");
  }
  impl_->set_state(StreamState::kStarting, "start");
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

void StreamSupervisor::stop() {
  std::lock_guard<std::mutex> lock(impl_->lifecycle_mutex);
  if (!impl_->thread.joinable()) return;
  // Runs on the supervisor thread, between two of its callbacks: no build or teardown is in
  // progress when it tears down.
  g_main_context_invoke_full(
      impl_->context.get(), G_PRIORITY_HIGH,
      [](gpointer p) -> gboolean {
        auto* impl = static_cast<Impl*>(p);
        impl->stopping = true;
        impl->retry_source.reset();
        impl->teardown();
        g_main_loop_quit(impl->loop.get());
        return G_SOURCE_REMOVE;
      },
      impl_.get(), nullptr);
  impl_->thread.join();
  {
    std::lock_guard<std::mutex> state_lock(impl_->mutex);
    impl_->next_attempt.reset();
  }
  impl_->set_state(StreamState::kStopped, "stop");
}

StreamStats StreamSupervisor::stats() const {
  const auto now = Clock::now();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  StreamStats s;
  s.state = impl_->state;
  s.retries = impl_->retries;
  s.failures_in_a_row = impl_->failures_in_a_row;
  s.last_error = impl_->last_error;
  s.activity = impl_->activity;  // cleared by the attempt's first frame
  s.activity_detail = impl_->activity_detail;
  s.frames = impl_->frames;
  s.source_frames = impl_->source_frames;
  if (impl_->last_frame) {
    s.last_frame_age = std::chrono::duration_cast<milliseconds>(now - *impl_->last_frame);
    // A window that stopped filling says nothing about the present: frames have stopped.
    s.fps = *s.last_frame_age < impl_->options.fps_window ? impl_->fps : 0.0;
  }
  if (impl_->next_attempt) {
    s.next_attempt_in = std::max(
        milliseconds(0), std::chrono::duration_cast<milliseconds>(*impl_->next_attempt - now));
  }
  return s;
}

StreamState StreamSupervisor::state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->state;
}

const std::string& StreamSupervisor::id() const {
  return impl_->id;
}

const StreamPipeline& StreamSupervisor::pipeline() const {
  return impl_->spec;
}

const std::string& StreamSupervisor::description() const {
  return impl_->spec.description;
}

}  // namespace yolo::monitor
