set -u
mkdir -p /tmp/r
bash bench/h200/s22/variants.sh s23b 2 "bench/h200/s23/T0 bench/h200/s23/WD bench/h200/s23/WDA bench/h200/s23/TA" --methods expand,dyngc --case tree:1e7 --workers 1024 --reps 5 --timeout-s 12 --arenas expand > /dev/null 2>&1
source bench/h200/s17/setup.sh
a="run --backend vulkan --warm-ms 100 --case tree:1e7 --case collatz:1e6 --case bfs:kron20 --methods expand,dyngc --workers 1024 --reps 5 --arenas expand --timeout-s 12"
for n in 1 2; do
  bench/h200/carry-vulkan/dyngc-bench $a --out $OUT/h200-vk-s23u-N-$n.json > /dev/null 2>&1
  DYNGC_UNCHECKED=1 bench/h200/s23/U/dyngc-bench $a --out $OUT/h200-vk-s23u-U-$n.json > /dev/null 2>&1
done
cd $OUT && tar czf s23b.tgz *.json *.log && rm -f *.json *.log
