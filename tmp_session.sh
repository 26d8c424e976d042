#!/usr/bin/env bash
# one device call: launcher micro-benchmark, its tests, A/B (launcher off/on), then the GPU suite
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >/dev/null 2>&1 && export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site-dask .whl/dask/*.whl >/dev/null 2>&1 && export PYTHONPATH=$PYTHONPATH:/tmp/site-dask
export NCCL_NVLS_ENABLE=0
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site-gb . >/dev/null 2>&1 && export PYTHONPATH=$PYTHONPATH:/tmp/site-gb
L=$OUT/ab.log
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L
timeout 60 python3 benchmarks/launch_cost.py >> $L 2>&1
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_launch.py > $OUT/launch_tests.log 2>&1; tail -3 $OUT/launch_tests.log >> $L
for r in 1 2; do for fl in 0 1; do
  echo "== host_overhead FAST_LAUNCH=$fl ($r)" >> $L
  GRAPHBLAST_GPU_FAST_LAUNCH=$fl timeout 60 python3 benchmarks/host_overhead.py --device gpu 2>&1 | grep "us/call" >> $L
done; done
for r in 1; do for fl in 0 1; do
  echo "== gpu.py FAST_LAUNCH=$fl ($r)" >> $L
  GRAPHBLAST_GPU_FAST_LAUNCH=$fl timeout 80 python3 benchmarks/gpu.py --scales 18 20 --grids 300 --repeats 3 --work ${WORK:-bfs bfs-parents pr-iter tc cc} 2>&1 | grep -v "^---" >> $L
done; done
echo "== GPU suite" >> $L
timeout ${T_TESTS:-280} python3 -m pytest -q -m gpu -n 16 --dist loadgroup -p no:cacheprovider tests > $OUT/gpu_tests.log 2>&1; echo "pytest exit $?" >> $OUT/gpu_tests.log
grep -E "^FAILED|^ERROR|passed|failed|pytest exit" $OUT/gpu_tests.log | tail -30 >> $L
