# The layer map at the level of #include lines (docs/architecture.md): which product folder may
# include which library and which other folders' headers. The link check (yolo_check_layer)
# cannot see this part: the trainer links yolo_media, and so GStreamer, legitimately, but its own
# files must go through yolo/media/ instead of including GStreamer themselves.
#
#   cmake -DROOT=<source tree> -P cmake/check_includes.cmake
#
# Prints one line per offending include and fails; prints a summary and succeeds otherwise.
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P check_includes.cmake")
endif()

set(_gst "<(gst|glib|gio)/|<glib(-object)?\\.h>")
set(_torch "<(torch|ATen|c10)/")
set(_above_core "yolo/(models|runtime|serving|media|tracking|analytics|predict|trainer|synth|monitor)/")

# folder;forbidden include (regex);why
set(_rules
  "core|${_gst}|GStreamer belongs in media/ and pipelines/"
  "core|<opencv2/|core has no OpenCV"
  "core|<httplib\\.h>|HTTP belongs in serving/"
  "core|<yaml-cpp/|configuration files are read above core"
  "core|${_above_core}|core includes no layer above it"
  "models|${_gst}|GStreamer belongs in media/ and pipelines/"
  "models|<opencv2/|the model zoo has no OpenCV"
  "models|<httplib\\.h>|HTTP belongs in serving/"
  "models|yolo/(runtime|serving|media|tracking|predict|trainer|synth|monitor)/|models includes no layer above it"
  "media|${_torch}|media has no LibTorch"
  "media|<httplib\\.h>|HTTP belongs in serving/"
  "media|yolo/(models|runtime|serving|tracking|predict|trainer|synth|monitor)/|media builds on core only"
  "runtime|${_gst}|GStreamer belongs in media/ and pipelines/"
  "runtime|<httplib\\.h>|HTTP belongs in serving/"
  "runtime|yolo/(serving|media|tracking|predict|trainer|synth|monitor)/|runtime includes no layer above it"
  "tracking|${_torch}|tracking has no LibTorch"
  "tracking|${_gst}|GStreamer belongs in media/ and pipelines/"
  "tracking|<httplib\\.h>|HTTP belongs in serving/"
  "tracking|yolo/(models|runtime|serving|media|analytics|predict|trainer|synth|monitor)/|tracking builds on core only"
  "analytics|${_torch}|analytics has no LibTorch"
  "analytics|${_gst}|GStreamer belongs in media/ and pipelines/"
  "analytics|<opencv2/|the analytics' geometry is its own"
  "analytics|<httplib\\.h>|HTTP belongs in serving/"
  "analytics|yolo/(models|runtime|serving|media|tracking|predict|trainer|synth|monitor)/|analytics builds on core only"
  "serving|${_gst}|GStreamer belongs in media/ and pipelines/"
  "serving|yolo/(media|predict|trainer|synth|monitor)/|serving includes no trainer, predict or pipeline code"
  "trainer|${_gst}|the trainer reaches GStreamer through yolo/media/ only"
  "trainer|yolo/(serving|monitor)/|the trainer includes no serving or pipeline code"
  "predict|${_gst}|predict reaches GStreamer through yolo/media/ only"
  "predict|<httplib\\.h>|HTTP belongs in serving/"
  "predict|yolo/(serving|trainer|synth|monitor)/|predict is a tool over the runtime, media and tracking"
  "synth|${_torch}|synth has no LibTorch"
  "synth|${_gst}|synth reaches GStreamer through yolo/media/ only"
  "synth|yolo/(models|runtime|serving|tracking|analytics|predict|trainer|monitor)/|synth builds on core and media only"
  "pipelines|yolo/(trainer|predict|synth)/|the pipelines never use the trainer's code"
)

set(_violations "")
set(_checked 0)
foreach(_rule IN LISTS _rules)
  string(REPLACE "|" ";" _parts "${_rule}")
  # The regex itself may hold '|': the folder is the first part, the reason the last.
  list(GET _parts 0 _folder)
  list(POP_FRONT _parts)
  list(POP_BACK _parts _why)
  list(JOIN _parts "|" _forbid)
  file(GLOB_RECURSE _files LIST_DIRECTORIES false
    "${ROOT}/${_folder}/*.h" "${ROOT}/${_folder}/*.hpp" "${ROOT}/${_folder}/*.cpp"
    "${ROOT}/${_folder}/*.cpp.in" "${ROOT}/${_folder}/*.h.in")
  foreach(_file IN LISTS _files)
    math(EXPR _checked "${_checked} + 1")
    file(STRINGS "${_file}" _includes REGEX "^[ \t]*#[ \t]*include")
    foreach(_line IN LISTS _includes)
      if(_line MATCHES "${_forbid}")
        file(RELATIVE_PATH _rel "${ROOT}" "${_file}")
        string(STRIP "${_line}" _line)
        list(APPEND _violations "${_rel}: '${_line}' (${_why})")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_violations)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "yolo include check: ${_text}\nSee the layer map in docs/architecture.md.")
endif()
message(STATUS "yolo include check: ${_checked} file checks, no include crosses a layer")
