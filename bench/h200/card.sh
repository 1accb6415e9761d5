# Sourced by the device scripts: `card` names their result files after the GPU the call got
# (`h100`, `h200`: a call for one may get the other; session 26's files were renamed by hand).
card="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE 'h[0-9]{3}' | head -1 | tr 'A-Z' 'a-z' || true)"
card="${card:-gpu}"
