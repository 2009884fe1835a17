# MOT metrics (CLEAR, identity, HOTA) and the MOTChallenge text format; included from
# tracking/CMakeLists.txt.
target_sources(yolo_tracking PRIVATE
)
