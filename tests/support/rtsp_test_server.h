// An RTSP server on 127.0.0.1 inside the test process (gst-rtsp-server), serving a live JPEG
// test pattern at /cam. stop() closes every client connection and the listening socket (a
// camera that went away); start() again serves on the same port (the camera came back).
// The server runs on its own GMainContext thread; every call is made there and waited for.
#pragma once

#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

namespace yolo::testing {

class RtspTestServer {
 public:
  // `launch` is the media factory's pipeline; pay0 must be its payloader.
  explicit RtspTestServer(
      std::string launch =
          "( videotestsrc is-live=true pattern=ball ! "
          "video/x-raw,format=I420,width=160,height=120,framerate=15/1 ! jpegenc ! "
          "rtpjpegpay name=pay0 pt=26 )")
      : launch_(std::move(launch)),
        context_(g_main_context_new()),
        loop_(g_main_loop_new(context_, FALSE)),
        thread_([this] {
          g_main_context_push_thread_default(context_);
          g_main_loop_run(loop_);
          g_main_context_pop_thread_default(context_);
        }) {}

  ~RtspTestServer() {
    stop();
    call([this] { g_main_loop_quit(loop_); });
    thread_.join();
    g_main_loop_unref(loop_);
    g_main_context_unref(context_);
  }
  RtspTestServer(const RtspTestServer&) = delete;
  RtspTestServer& operator=(const RtspTestServer&) = delete;

  void start() {
    call([this] {
      server_ = gst_rtsp_server_new();
      gst_rtsp_server_set_address(server_, "127.0.0.1");
      gst_rtsp_server_set_service(server_, std::to_string(port_).c_str());  // 0 at first: any
      // Clients and media on this server's own thread, not a pool of others: stop() then closes
      // them where their socket watches run. With the default pool, a client's watch could be
      // dispatched on a pool thread while stop() closed it here (a crash in libgstrtsp, about
      // one run in six of test_monitor_supervisor under the leaks tracer).
      GstRTSPThreadPool* threads = gst_rtsp_server_get_thread_pool(server_);
      gst_rtsp_thread_pool_set_max_threads(threads, 0);
      g_object_unref(threads);
      GstRTSPMountPoints* mounts = gst_rtsp_server_get_mount_points(server_);
      GstRTSPMediaFactory* factory = gst_rtsp_media_factory_new();
      gst_rtsp_media_factory_set_launch(factory, launch_.c_str());
      gst_rtsp_mount_points_add_factory(mounts, "/cam", factory);  // takes the factory
      g_object_unref(mounts);
      GError* error = nullptr;
      source_ = gst_rtsp_server_create_source(server_, nullptr, &error);
      if (!source_) {
        const std::string why = error ? error->message : "unknown";
        g_clear_error(&error);
        g_object_unref(server_);
        server_ = nullptr;
        throw std::runtime_error("test RTSP server cannot listen: " + why);
      }
      g_source_attach(source_, context_);
      port_ = gst_rtsp_server_get_bound_port(server_);
    });
  }

  void stop() {
    call([this] {
      if (!server_) return;
      g_source_destroy(source_);  // closes the listening socket
      g_source_unref(source_);
      source_ = nullptr;
      // Hang up on every connected client (and so tear their sessions down).
      g_list_free_full(
          gst_rtsp_server_client_filter(
              server_,
              [](GstRTSPServer*, GstRTSPClient*, gpointer) { return GST_RTSP_FILTER_REMOVE; },
              nullptr),
          g_object_unref);
      GstRTSPSessionPool* pool = gst_rtsp_server_get_session_pool(server_);
      gst_rtsp_session_pool_filter(
          pool,
          [](GstRTSPSessionPool*, GstRTSPSession*, gpointer) { return GST_RTSP_FILTER_REMOVE; },
          nullptr);
      g_object_unref(pool);
      g_object_unref(server_);
      server_ = nullptr;
    });
  }

  int port() const { return port_; }
  std::string uri() const { return "rtsp://127.0.0.1:" + std::to_string(port_) + "/cam"; }

 private:
  // Runs fn on the server's thread and waits; exceptions come back to the caller.
  void call(std::function<void()> fn) {
    struct Job {
      std::function<void()> fn;
      std::promise<void> done;
    } job{std::move(fn), {}};
    auto future = job.done.get_future();
    g_main_context_invoke(
        context_,
        [](gpointer p) -> gboolean {
          auto* j = static_cast<Job*>(p);
          try {
            j->fn();
            j->done.set_value();
          } catch (...) {
            j->done.set_exception(std::current_exception());
          }
          return G_SOURCE_REMOVE;
        },
        &job);
    future.get();
  }

  const std::string launch_;
  GMainContext* context_;
  GMainLoop* loop_;
  std::thread thread_;
  GstRTSPServer* server_ = nullptr;
  GSource* source_ = nullptr;
  int port_ = 0;
};

}  // namespace yolo::testing
