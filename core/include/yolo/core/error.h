// The base of every error the product reports to a person. what() is the whole message (the
// input, what is wrong with it, what to do); the kind says which exit code a command-line front
// end maps it to. Each main() catches yolo::Error once and returns exit_code(); anything else that
// escapes is a library failure or a bug, and exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace yolo {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

class Error : public std::runtime_error {
 public:
  enum class Kind {
    kUsage,    // the command line or a configuration asks for something impossible: fix, rerun
    kFailure,  // an input or the machine let the work down: a file, a model, a camera, a disk
  };
  Error(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}

  Kind error_kind() const { return kind_; }
  int exit_code() const { return kind_ == Kind::kUsage ? kExitUsage : kExitFailure; }

 private:
  Kind kind_;
};

// The two kinds as base classes, so an error type says which it is in its declaration.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(Kind::kUsage, what) {}
};

class FailureError : public Error {
 public:
  explicit FailureError(const std::string& what) : Error(Kind::kFailure, what) {}
};

}  // namespace yolo
