# Installing the programs so that they run where they are installed, and the Debian package
# (CPack's DEB generator) built from that installation by tools/package.sh.
#
# Two ways to install:
#   YOLO_BUNDLE_LIBTORCH=OFF (default; `cmake --install build --prefix DIR`, a developer's path):
#     the programs keep the build machine's LibTorch in their RPATH (the venv's torch/lib), so
#     they run on this machine from DIR, and nowhere else.
#   YOLO_BUNDLE_LIBTORCH=ON (tools/package.sh): the LibTorch libraries the programs load are
#     copied into <prefix>/lib/yolo-edge, stripped, and every program finds them there through an
#     $ORIGIN-relative RPATH, so the installed tree needs neither the build machine's paths nor
#     Python. Debian's own libraries (GStreamer, OpenCV, ...) stay dependencies by package name.
option(YOLO_BUNDLE_LIBTORCH "Install the LibTorch libraries the programs load beside them" OFF)
# The private library folder: Debian does not ship LibTorch 2.x, so it is the package's own.
set(YOLO_PRIVATE_LIBDIR "lib/yolo-edge")

# Sets a program's or plugin's install RPATH for the way of installing chosen above.
#   yolo_install_rpath(yolo-trainer ${CMAKE_INSTALL_BINDIR})
function(yolo_install_rpath target destination)
  if(YOLO_BUNDLE_LIBTORCH)
    file(RELATIVE_PATH to_private "/${destination}" "/${YOLO_PRIVATE_LIBDIR}")
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_private}"
                                               INSTALL_RPATH_USE_LINK_PATH OFF)
  else()
    set_target_properties(${target} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
  set_property(GLOBAL APPEND PROPERTY YOLO_INSTALLED_BINARIES ${target})
endfunction()

# The install step that copies LibTorch's libraries (and, for PyPI's wheel, the CUDA runtime
# pieces its CPU library names) that the installed programs load. Called once, after every
# program was registered by yolo_install_rpath.
function(yolo_install_bundled_libtorch)
  if(NOT YOLO_BUNDLE_LIBTORCH)
    return()
  endif()
  get_property(targets GLOBAL PROPERTY YOLO_INSTALLED_BINARIES)
  set(files "")
  foreach(t ${targets})
    list(APPEND files "$<TARGET_FILE:${t}>")
  endforeach()
  # Where LibTorch's libraries may come from: its own lib folder and, for a wheel, the folders
  # of the nvidia-* wheels beside it. Everything else a program loads is the system's.
  get_filename_component(torch_root "${Torch_DIR}/../../.." REALPATH)
  set(roots "${torch_root}/lib")
  get_filename_component(site_packages "${torch_root}/.." REALPATH)
  if(EXISTS "${site_packages}/nvidia")
    list(APPEND roots "${site_packages}/nvidia")
  endif()
  install(CODE "
    set(YOLO_BUNDLE_FILES \"${files}\")
    set(YOLO_BUNDLE_ROOTS \"${roots}\")
    set(YOLO_BUNDLE_DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${YOLO_PRIVATE_LIBDIR}\")
    set(YOLO_BUNDLE_STRIP \"${CMAKE_STRIP}\")
    include(\"${PROJECT_SOURCE_DIR}/cmake/InstallBundledLibTorch.cmake\")")
endfunction()

# The Debian package (cpack -G DEB in the build folder; tools/package.sh runs it).
function(yolo_configure_debian_package)
  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME yolo-edge)
  set(CPACK_PACKAGE_VENDOR "yolo-edge")
  set(CPACK_PACKAGE_CONTACT "yolo-edge maintainers <yolo-edge@localhost>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
      "YOLO object detection for the edge: camera service, GStreamer element, trainer (${YOLO_TORCH_FLAVOUR})")
  # One string (CMake would join separate arguments with ';'); CPack indents the lines.
  string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "YOLO object detection for the edge, in C++ with no Python.\n"
    "yolo-monitor watches RTSP, file and V4L2 cameras, runs YOLO detection and tracking on "
    "them and serves the results over HTTP (systemd unit yolo-monitor.service, configured in "
    "/etc/yolo-monitor/monitor.yaml). The GStreamer plugin gstyolo provides the yolo, "
    "yolotracker, yoloanalytics, yolopublish and yolooverlay elements. yolo-trainer trains, "
    "validates, predicts with and exports YOLOv8, YOLO11 and YOLO26 detectors.\n"
    "\n"
    "Flavour: ${YOLO_TORCH_FLAVOUR} (LibTorch ${Torch_VERSION}, bundled in "
    "/usr/${YOLO_PRIVATE_LIBDIR}).")
  # The flavour is part of the version, as PyTorch's wheels do (2.11.0+cpu): one package name,
  # so that the flavours replace each other on a box.
  set(version "${PROJECT_VERSION}+${YOLO_TORCH_FLAVOUR}")
  set(CPACK_PACKAGE_VERSION "${version}")
  set(CPACK_DEBIAN_PACKAGE_VERSION "${version}")
  set(CPACK_DEBIAN_PACKAGE_RELEASE "")
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION video)
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/yolo-edge")
  # zstd: the 0.4 GB of LibTorch compresses in a fraction of xz's time; dpkg reads it since 1.21.18.
  set(CPACK_DEBIAN_COMPRESSION_TYPE zstd)
  # Libraries the programs link: computed by dpkg-shlibdeps from the binaries. LibTorch's own
  # come with the package: CPack lays the package tree out so that dpkg-shlibdeps resolves the
  # $ORIGIN RPATHs inside it and counts them as the package's.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # What no linker sees: the GStreamer elements the pipelines create by name (decodebin,
  # videoconvert, appsink: base; rtspsrc, qtdemux, matroskademux, souphttpsrc, v4l2src, jpegdec:
  # good; h264parse, h265parse: bad; avdec_h264/h265: libav).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "gstreamer1.0-plugins-base, gstreamer1.0-plugins-good, gstreamer1.0-plugins-bad, gstreamer1.0-libav")
  # gst-launch-1.0 and gst-inspect-1.0 for pipelines typed by hand.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gstreamer1.0-tools")
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
      "${PROJECT_SOURCE_DIR}/packaging/deb/conffiles;${PROJECT_SOURCE_DIR}/packaging/deb/postinst;${PROJECT_SOURCE_DIR}/packaging/deb/prerm;${PROJECT_SOURCE_DIR}/packaging/deb/postrm")
  # Install into the package tree through DESTDIR, so that absolute destinations (/etc) land
  # in the package, not on the machine that builds it.
  set(CPACK_SET_DESTDIR ON)
  set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/packages")
  set(CPACK_OUTPUT_CONFIG_FILE "${CMAKE_BINARY_DIR}/CPackConfig.cmake")
  set(CPACK_SOURCE_OUTPUT_CONFIG_FILE "${CMAKE_BINARY_DIR}/CPackSourceConfig.cmake")
  include(CPack)
endfunction()
