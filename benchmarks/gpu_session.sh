#!/usr/bin/env bash
# One batched GPU session (used through the device tool): GPU tests, then the
# benchmarks, logs under $OUT.  Expects wheels for test-only packages in .whl/
# (python-graphblas and its needs); the test data is in the repository (tests/data/).
set -uo pipefail
OUT=${OUT:-/tmp/gb-out}; mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "import cupy; print('cupy', cupy.__version__)" | tee -a "$OUT/device.txt"
NPROC=${NPROC:-8}
python3 -m pytest -q -m gpu -n "$NPROC" -p no:cacheprovider tests 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
python3 benchmarks/host_overhead.py --device gpu 2>&1 | tee "$OUT/overhead_gpu.log"
python3 benchmarks/host_overhead.py --device cpu 2>&1 | tee "$OUT/overhead_cpu.log"
python3 benchmarks/bfs.py --device gpu --scales ${BFS_SCALES:-16 18 20} --repeats 5 2>&1 | tee "$OUT/bfs_gpu.log"
python3 -m graphblast_py.demo 18 2>&1 | tee "$OUT/demo_gpu.log"
