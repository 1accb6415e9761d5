# Sourced by the device scripts here: the Vulkan loader and libglvnd from the carried .debs, and
# the driver's ICD through libEGL_nvidia (bench/h200/run.sh says why) unless VK_DRIVER_FILES names
# another; `card` for the result files (card.sh).
here=bench/h200/carry-vulkan
for f in "$here"/*.deb; do dpkg -x "$f" /; done; ldconfig
echo '{"file_format_version":"1.0.1","ICD":{"library_path":"libEGL_nvidia.so.0","api_version":"1.4.312"}}' > /tmp/icd.json
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/tmp/icd.json} WGPU_BACKEND=vulkan
source bench/h200/card.sh
