// What every main() does with an error that escapes its work: log the message and exit with the
// error's code (yolo::Error: usage 2, failure 1; any other exception: 1), never std::terminate.
//   int main(int argc, char** argv) { return yolo::run_guarded([&] { return run(argc, argv); }); }
#pragma once

#include <spdlog/spdlog.h>

#include <exception>

#include "yolo/core/error.h"

namespace yolo {

template <class Body>
int run_guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitFailure;
  } catch (...) {
    spdlog::error("stopped by an exception that is not a std::exception");
    return kExitFailure;
  }
}

}  // namespace yolo
