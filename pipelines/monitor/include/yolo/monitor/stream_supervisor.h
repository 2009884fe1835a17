// One stream's pipeline, kept alive: a StreamSupervisor builds the pipeline from its
// StreamPipeline (pipeline_description.h: gst-launch text for the source, the inference elements
// made from typed settings), watches it, and rebuilds it with capped exponential backoff when it
// fails. One per stream; streams never share a pipeline, a bus or a thread, so
// one camera's failure never touches another.
//
// What counts as a failure of the running attempt:
//   - an ERROR message on the bus, or rtspsrc's "GstRTSPSrcTimeout" element message;
//   - EOS (a camera that hangs up, a file that ended: files are replayed from the start);
//   - no first frame within start_timeout of (re)starting;
//   - no frame for stall_timeout once frames flowed (a camera that silently stops sending).
// States:
//   starting      the first attempt, before its first frame
//   running       frames arrive (the first frame of an attempt is the success that resets the
//                 backoff and the failure count)
//   stalled       a stall was detected; the pipeline is torn down, waiting to rebuild
//   reconnecting  after an error, EOS or start timeout: waiting to rebuild, or rebuilt and
//                 waiting for the first frame
//   failed        max_retries consecutive rebuilds failed, or the `yolo` element refused its
//                 configuration (a setting out of range, a class the model lacks, a model file
//                 that is missing or does not load); nothing more is tried until a reload
//   stopped       before start() and after stop()
//
// Threads: each supervisor runs its own GMainContext on its own thread (bus watch, timers,
// teardown and rebuild); it never uses the global default main context. gst_init() must have
// been called by the owner.
#pragma once

#include <gst/gst.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "yolo/core/backoff.h"
#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/pipeline_description.h"

namespace yolo::monitor {

enum class StreamState { kStarting, kRunning, kStalled, kReconnecting, kFailed, kStopped };
const char* to_string(StreamState state);

struct SupervisorOptions {
  std::chrono::milliseconds stall_timeout{10000};  // running without a frame this long: stall
  std::chrono::milliseconds start_timeout{20000};  // (re)started, no first frame this long
  BackoffOptions backoff;                          // delays between rebuilds
  int max_retries = 0;  // consecutive failed rebuilds before `failed`; 0 = retry forever
  std::chrono::milliseconds fps_window{2000};  // fps is counted over windows this long
  // The stream's source, for errors about it: its uri and what to check (media's
  // source_failure_hint). Empty: errors carry GStreamer's words only.
  std::string source, source_hint;
};
SupervisorOptions supervisor_options(const SupervisionConfig& config);

struct StreamStats {
  StreamState state = StreamState::kStopped;
  std::uint64_t retries = 0;  // rebuilds since start()
  int failures_in_a_row = 0;  // failed attempts since the last one that delivered a frame
  std::string last_error;     // why the last attempt failed; empty if none has
  // Until the attempt's first frame: what the `yolo` element reported of its start-up ("loading
  // model", "waiting for frames") and its detail (the model); empty otherwise.
  std::string activity, activity_detail;
  std::uint64_t frames = 0;  // frames delivered since start(), over every attempt
  // Frames that entered the leaky queue (kLeakyQueueName) since start(): more than `frames`
  // when the model is slower than the camera (the queue drops the rest). 0 without the queue.
  std::uint64_t source_frames = 0;
  double fps = 0;  // over the last complete fps window; 0 when frames stopped
  std::optional<std::chrono::milliseconds> last_frame_age;   // none before the first frame
  std::optional<std::chrono::milliseconds> next_attempt_in;  // while waiting to rebuild
};
// {"state": "running", "retries": 0, "failures_in_a_row": 0, "last_error": null,
//  "activity": null, "frames": 12,
//  "source_frames": 14, "fps": 14.9, "last_frame_age_s": 0.04, "next_attempt_in_s": null}
nlohmann::json to_json(const StreamStats& stats);

class StreamSupervisor {
 public:
  // Called on a GStreamer streaming thread with each sample (buffer + caps) the appsink named
  // kAppSinkName hands over. The sample is only borrowed for the call (gst_sample_ref to keep
  // it). Keep it short: the stream's next frame waits for it. Must not call stop().
  using SampleCallback = std::function<void(GstSample* sample)>;
  // Called on each state change with the reason (an error text, "first frame", ...), from the
  // supervisor's thread or a streaming thread. Must not call stop().
  using StateCallback = std::function<void(StreamState state, const std::string& reason)>;
  // Called on the supervisor thread with each newly built pipeline, before it is set to
  // PLAYING: to find elements by name, set properties, add pad probes. The pipeline is borrowed.
  using PipelineCallback = std::function<void(GstElement* pipeline)>;
  struct Callbacks {
    SampleCallback on_sample;      // optional
    StateCallback on_state;        // optional
    PipelineCallback on_pipeline;  // optional
  };

  // `pipeline.launch` ends in an appsink named kAppSinkName (a plain gst-launch description
  // converts to a StreamPipeline); `pipeline.inference` is linked in front of that appsink.
  // Throws std::invalid_argument for bad options. Nothing runs before start().
  StreamSupervisor(std::string id, StreamPipeline pipeline, SupervisorOptions options,
                   Callbacks callbacks, Backoff::RandomSource random = {});
  // stop().
  ~StreamSupervisor();
  StreamSupervisor(const StreamSupervisor&) = delete;
  StreamSupervisor& operator=(const StreamSupervisor&) = delete;

  // Starts the supervisor thread, which builds the first pipeline; returns at once. A
  // description that does not parse, or an inference element that cannot be made (no such
  // element or property, a value its property does not take), is a failed attempt like any
  // other (retried, reported in last_error). Calling it twice is an error (std::logic_error).
  void start();
  // Tears the pipeline down (state NULL: every streaming thread has ended when this returns),
  // joins the thread; state becomes stopped. Idempotent, thread-safe, prompt: it waits only for
  // the pipeline's own shutdown.
  void stop();

  StreamStats stats() const;
  StreamState state() const;
  const std::string& id() const;
  const StreamPipeline& pipeline() const;
  // pipeline().description: the whole pipeline as gst-launch text, for logs.
  const std::string& description() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo::monitor
