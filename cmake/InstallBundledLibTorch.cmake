# Install-time script (cmake/YoloPackaging.cmake, YOLO_BUNDLE_LIBTORCH=ON): copies the LibTorch
# libraries the programs load into the private library folder, and nothing else of LibTorch.
#
# Input variables:
#   YOLO_BUNDLE_FILES        the programs and the plugin, as built (their RPATH finds LibTorch)
#   YOLO_BUNDLE_ROOTS        folders LibTorch's libraries come from (its lib/, the nvidia-* wheels)
#   YOLO_BUNDLE_DESTINATION  <prefix>/lib/yolo-edge
#   YOLO_BUNDLE_STRIP        strip, or empty
#
# The set is what the dynamic loader would load, computed from the binaries (DT_NEEDED, followed
# through each library's own RPATH): a `cpu` build (YOLO_LIBTORCH_PARTS=cpu) against PyPI's CUDA
# wheel gets libtorch_cpu, libc10, libgomp and the two CUDA runtime pieces libtorch_cpu names
# (libcudart, libcupti), not libtorch_cuda and its 2.5 GB. Libraries outside the roots are the
# system's, and the package declares them by name (dpkg-shlibdeps).

if(DEFINED ENV{DESTDIR})
  set(dest "$ENV{DESTDIR}${YOLO_BUNDLE_DESTINATION}")
else()
  set(dest "${YOLO_BUNDLE_DESTINATION}")
endif()

set(executables "")
set(modules "")
foreach(f ${YOLO_BUNDLE_FILES})
  if(f MATCHES "\\.so$")
    list(APPEND modules "${f}")
  else()
    list(APPEND executables "${f}")
  endif()
endforeach()

file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES ${executables}
  MODULES ${modules}
  RESOLVED_DEPENDENCIES_VAR resolved
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  CONFLICTING_DEPENDENCIES_PREFIX conflicting)
# A soname found both in LibTorch's folder and the system's (libgomp.so.1: the wheel carries its
# own, Debian's libgomp1 has one too): the process loads one, the one LibTorch's RPATH names,
# since libtorch_cpu asks for it before the system libraries that also need it are searched.
foreach(name ${conflicting_FILENAMES})
  set(chosen "")
  foreach(candidate ${conflicting_${name}})
    get_filename_component(real "${candidate}" REALPATH)
    foreach(root ${YOLO_BUNDLE_ROOTS})
      string(FIND "${real}" "${root}/" at)
      if(at EQUAL 0)
        set(chosen "${candidate}")
      endif()
    endforeach()
  endforeach()
  if(NOT chosen)
    list(GET conflicting_${name} 0 chosen)
  endif()
  list(APPEND resolved "${chosen}")
endforeach()

set(bundled "")
foreach(lib ${resolved})
  get_filename_component(real "${lib}" REALPATH)
  foreach(root ${YOLO_BUNDLE_ROOTS})
    string(FIND "${real}" "${root}/" at)
    if(at EQUAL 0)
      list(APPEND bundled "${real}")
      break()
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES bundled)
if(NOT bundled)
  message(FATAL_ERROR
    "yolo: YOLO_BUNDLE_LIBTORCH found no LibTorch library among what the programs load "
    "(looked under ${YOLO_BUNDLE_ROOTS}); resolved: ${resolved}")
endif()
if(unresolved)
  message(FATAL_ERROR
    "yolo: the programs need libraries the loader cannot find on this machine: ${unresolved}. "
    "A package made without them would fail on the box.")
endif()

file(MAKE_DIRECTORY "${dest}")
foreach(real ${bundled})
  get_filename_component(name "${real}" NAME)
  message(STATUS "Bundling LibTorch: ${dest}/${name}")
  # A plain copy under the soname the programs ask for (wheels carry no soname links).
  file(COPY_FILE "${real}" "${dest}/${name}" ONLY_IF_DIFFERENT)
  file(CHMOD "${dest}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  if(YOLO_BUNDLE_STRIP)
    # The symbol tables LibTorch ships (about 90 MB of libtorch_cpu's 450 MB): the dynamic
    # symbols stay, so nothing that links or loads it changes.
    execute_process(COMMAND "${YOLO_BUNDLE_STRIP}" --strip-unneeded "${dest}/${name}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "yolo: ${YOLO_BUNDLE_STRIP} ${dest}/${name} failed: ${err}")
    endif()
  endif()
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${dest}/${name}")
endforeach()
