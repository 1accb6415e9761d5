# Device call (nvidia-h200, carrying bench/h200/carry-vulkan, bench/h200/s23/T0 and
# bench/h200/s23/N): main re-measured, the arena goal, and an interleaved A/B of tree's kernel
# before (T0: 277c7ac) and with accumulated outputs (N). -> $OUT/s23.tgz
set -u
bash bench/h200/run.sh vulkan s23 main > /dev/null 2>&1
bash bench/h200/s21/peak.sh s23 > /dev/null 2>&1
bash bench/h200/s22/variants.sh s23c 2 "bench/h200/s23/T0 bench/h200/s23/N" --methods expand,dyngc \
  --case tree:1e7 --case tree:1e6 --workers 1024 --reps 5 --timeout-s 12 --arenas x16,x256,p/16,expand > /dev/null 2>&1
cd "$OUT" && tar czf s23.tgz ./*.json ./*.log && rm -f ./*.json ./*.log
