#!/usr/bin/env bash
# One batched GPU session (run through the device tool from the repository
# root): the GPU tests, the comparison suite (default set, the large set, the
# BFS ablation) and the expm rows of the spectral benchmark; what matters is copied flat to
# $OUT (the device tool brings back at most 8 files).
#
# Test-only packages the GPU machine lacks travel as wheels in .whl/
# (python-graphblas, suitesparse-graphblas, donfig, cffi, pycparser,
# graphblas-algorithms; see the device tool's README for the pip download line).
set -uo pipefail
OUT=${OUT:-/tmp/gb-out}; mkdir -p "$OUT"
W=/tmp/gb-work; mkdir -p "$W"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
# the package's own metadata (the networkx backend entry point), source from $PWD
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile \
  --target /tmp/site-gb . >/dev/null 2>&1 || echo "pip install of the package failed"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:${PYTHONPATH:-}:/tmp/site-gb
log() { echo "== $*" | tee -a "$OUT/run.log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/run.log"
python3 -c "import cupy; print('cupy', cupy.__version__)" | tee -a "$OUT/run.log"

# STEPS picks the parts (one device call is at most 10 minutes):
# tests default large ablation spectral
STEPS=" ${STEPS:-tests default large ablation spectral} "
has() { [[ "$STEPS" == *" $1 "* ]]; }

if has tests; then
log "GPU tests"
timeout "${T_TESTS:-300}" python3 -m pytest -q -m gpu -n "${NPROC:-8}" -p no:cacheprovider tests \
  > "$OUT/gpu_tests.log" 2>&1; echo "pytest exit $?" >> "$OUT/gpu_tests.log"
grep -E "^FAILED|passed|failed|pytest exit" "$OUT/gpu_tests.log" | tee -a "$OUT/run.log"
fi

if has default; then
log "compare: default set"
( time timeout "${T_DEFAULT:-90}" python3 -m graphblast_py compare --quiet --out "$W/default" ) \
  >> "$OUT/run.log" 2>&1; echo "exit $?" >> "$OUT/run.log"
fi
if has large; then
log "compare: large set (kron:22, grid:1000), graphblast-py on the GPU, SciPy, CuPy baselines"
( time timeout "${T_LARGE:-200}" python3 -m graphblast_py compare --quiet --graphs large \
    --devices gpu --systems graphblast-py,scipy,cupy-baselines --repeat 2 --budget 10 \
    --warmup-budget 30 --out "$W/large" ) >> "$OUT/run.log" 2>&1; echo "exit $?" >> "$OUT/run.log"
fi
if has ablation; then
log "compare --ablation on the GPU"
timeout "${T_ABL:-35}" python3 -m graphblast_py compare --quiet --ablation --devices gpu \
  --graphs kron:18 grid:300 --out "$W/ablation" >> "$OUT/run.log" 2>&1
echo "exit $?" >> "$OUT/run.log"
fi

if has spectral; then
log "spectral: expm_multiply(krylov_dim=30) against the plain CuPy Lanczos"
timeout "${T_SPEC:-50}" python3 benchmarks/spectral.py --device gpu --scales 20 22 --eig-max-n 0 \
  --repeats 5 >> "$OUT/run.log" 2>&1
fi

cp "$W/default/table.md" "$OUT/default_table.md" 2>/dev/null
cp "$W/default/time_vs_size.png" "$OUT/default_time_vs_size.png" 2>/dev/null
cp "$W/default/speedup.png" "$OUT/default_speedup.png" 2>/dev/null
cp "$W/large/table.md" "$OUT/large_table.md" 2>/dev/null || \
  cp "$W/large/runs.partial.tsv" "$OUT/large_partial.tsv" 2>/dev/null
cat "$W"/ablation/*.md > "$OUT/ablation.md" 2>/dev/null
ls -la "$W"/* >> "$OUT/run.log" 2>&1
