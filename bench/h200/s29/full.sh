#!/usr/bin/env bash
# Device call of session 29 (carrying bench/h200/carry-vulkan): the issue 12 goal table and the
# stream outputs re-measured with the warm-up that waits for the clock (session 28), each part
# under its own time limit so that the first still comes back if the second is cut. The device
# returns a limited number of files: run it with the results tarred,
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s29/full.sh TAG 420 150; tar czf $R/x.tgz -C /tmp/res .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 TAG MAIN_SECONDS STREAMS_SECONDS"
tag="${1:?$usage}"
timeout "${2:?$usage}" bash bench/h200/run.sh vulkan "$tag" main || echo "main part: exit $?"
timeout "${3:?$usage}" bash bench/h200/run.sh vulkan "$tag" streams || echo "streams part: exit $?"
