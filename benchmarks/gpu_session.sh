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

# STEPS picks the parts (one device call is at most 10 minutes, and starting a
# machine costs minutes of the session's device time: two calls, e.g.
# STEPS="tests spectral fglt gpu" and STEPS="kron22 grid1000 ablation"):
#   tests     the GPU tests (TESTS: the test files, default all)
#   default   compare, the default set
#   kron22    compare kron:22 (GPU, SciPy, python-graphblas as reference, CuPy programs)
#   grid1000  compare grid:1000 (the same systems)
#   ablation  compare --ablation on kron:18 and grid:300
#   spectral  benchmarks/spectral.py: expm and eigvalsh rows, tridiagonal, 7000^2 grid
#   fglt      benchmarks/fglt.py on the GPU
#   gpu       benchmarks/gpu.py (BFS, PageRank, TC, CC against the CuPy programs; GPU_REPEATS
#             runs a row, default 5: three gave medians that moved by 1.6x on the host-bound rows)
#   spec18    the spectral rows at Kronecker 18, the 7000^2 grid and the tridiagonal
#   profile   benchmarks/op_profile.py: CC, SSSP, BFS, PageRank, TC per operation (Kronecker 22, 1000^2 grid), FGLT (Kronecker 17)
#   direction benchmarks/direction.py: per-level push / pull / auto on the GPU
#   cpu16     benchmarks/cpu.py on the machine's host cores (2 and 16 threads) against
#             python-graphblas and SciPy
#   disttests tests/test_dist_spmd.py (its GPU cases: 1 and 2 GPU workers, NCCL; and CPU ones)
#   distbench benchmarks/dist_spmd.py --device gpu on 1 and 2 GPUs (DIST_SCALES, DIST_WORKERS,
#             DIST_CC / DIST_BASE_CC: largest scale of CC, distributed / on one GPU;
#             DIST_BASE_SCALES: scales of the one-GPU baseline, default all;
#             DIST_ARGS: more arguments, e.g. --profile)
#   distcpu   benchmarks/dist_spmd.py --device cpu on 1 and 2 single-threaded processes
#   eig1000   eigvalsh top 6 on the 1000^2 grid alone (cupyx eigsh left out: 68 s)
#   seed5     benchmarks/fglt_seed.py: 5-orbit FGLT on graphs shaped as the FGLT seed's
#   traversal benchmarks/traversal.py: grid BFS with traversal speculation on and off,
#             and SSSP with round speculation on and off (the GPU relax kernel)
#   host      benchmarks/host_overhead.py --profile: host cost of one small operation
#   spmv      benchmarks/spmv_bound.py: a structure-only SpMV's lower bound against cuSPARSE
STEPS=" ${STEPS:-tests default kron22 grid1000 ablation spectral} "
has() { [[ "$STEPS" == *" $1 "* ]]; }

if has tests || has disttests || has distbench || has distcpu; then
  # dask.distributed and its pure-Python dependencies travel as wheels in .whl/dask
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/site-dask .whl/dask/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site-dask
  export NCCL_NVLS_ENABLE=0
  python3 -c "import distributed; print('distributed', distributed.__version__)" | tee -a "$OUT/run.log"
fi
if has disttests; then
log "dist tests (GPU and CPU cases)"
timeout "${T_DIST:-240}" python3 -m pytest -q -p no:cacheprovider ${DIST_TEST_ARGS:-} tests/test_dist_spmd.py \
  > "$OUT/dist_tests.log" 2>&1; echo "pytest exit $?" >> "$OUT/dist_tests.log"
grep -E "^FAILED|passed|failed|pytest exit" "$OUT/dist_tests.log" | tee -a "$OUT/run.log"
fi
if has distbench; then
log "benchmarks/dist_spmd.py on the GPUs"
( cd benchmarks && timeout "${T_DISTB:-400}" python3 dist_spmd.py --device gpu \
  --scales ${DIST_SCALES:-22 24} --workers ${DIST_WORKERS:-1 2} --iters 5 --repeats 3 \
  --cc-max-scale ${DIST_CC:-22} --base-cc-max-scale ${DIST_BASE_CC:-${DIST_CC:-22}} \
  ${DIST_BASE_SCALES:+--base-scales $DIST_BASE_SCALES} ${DIST_ARGS:-} ) 2>&1 | grep -v WARNING \
  > "$OUT/dist_bench.log"; echo "exit $?" >> "$OUT/dist_bench.log"
fi
if has distcpu; then
log "benchmarks/dist_spmd.py on the host's CPUs"
( cd benchmarks && NUMBA_NUM_THREADS=1 timeout "${T_DISTC:-150}" python3 dist_spmd.py --device cpu \
  --scales 16 18 --workers 1 2 --iters 5 --repeats 3 --cc-max-scale 18 ) 2>&1 | grep -v WARNING \
  | grep -v "distributed\." > "$OUT/dist_cpu.log"; echo "exit $?" >> "$OUT/dist_cpu.log"
fi

if has tests; then
log "GPU tests"
# SPREAD=N: the xdist workers are pinned to the first N GPUs (tests/conftest.py)
GRAPHBLAST_TEST_SPREAD_GPUS=${SPREAD:-0} \
timeout "${T_TESTS:-300}" python3 -m pytest -q -m gpu -n "${NPROC:-8}" --dist loadgroup -p no:cacheprovider ${TESTS:-tests} \
  > "$OUT/gpu_tests.log" 2>&1; echo "pytest exit $?" >> "$OUT/gpu_tests.log"
grep -E "^FAILED|passed|failed|pytest exit" "$OUT/gpu_tests.log" | tee -a "$OUT/run.log"
fi

if has default; then
log "compare: default set"
( time timeout "${T_DEFAULT:-90}" python3 -m graphblast_py compare --quiet --out "$W/default" ) \
  >> "$OUT/run.log" 2>&1; echo "exit $?" >> "$OUT/run.log"
fi
large() {   # $1: graph spec, $2: output name
  log "compare: $1, graphblast-py on the GPU, SciPy, python-graphblas, CuPy programs"
  ( time timeout "${T_LARGE:-250}" python3 -m graphblast_py compare --quiet --graphs "$1" \
      --devices gpu --systems graphblast-py,scipy,python-graphblas,cupy-baselines --repeat 2 \
      --budget 10 --warmup-budget 30 --no-plots --out "$W/$2" ) >> "$OUT/run.log" 2>&1
  echo "exit $?" >> "$OUT/run.log"
  cp "$W/$2/table.md" "$OUT/$2_table.md" 2>/dev/null || \
    cp "$W/$2/runs.partial.tsv" "$OUT/$2_partial.tsv" 2>/dev/null
}
if has kron22; then large kron:22 kron22; fi
if has grid1000; then large grid:1000 grid1000; fi
if has ablation; then
log "compare --ablation on the GPU"
timeout "${T_ABL:-35}" python3 -m graphblast_py compare --quiet --ablation --devices gpu \
  --graphs kron:18 grid:300 --out "$W/ablation" >> "$OUT/run.log" 2>&1
echo "exit $?" >> "$OUT/run.log"
fi

if has spectral; then
log "spectral: expm_multiply(krylov_dim=30) against the plain CuPy Lanczos, eigvalsh against eigsh"
timeout "${T_SPEC:-150}" python3 benchmarks/spectral.py --device gpu --scales 18 20 22 \
  --grids 300 1000 --big-grid 7000 --tridiag 20000 --eig-max-n 5000000 --eigsh-max-n 5000000 \
  --repeats 7 > "$OUT/spectral.log" 2>&1; echo "exit $?" >> "$OUT/spectral.log"
fi
if has fglt; then
log "fglt on the GPU"
timeout "${T_FGLT:-90}" python3 benchmarks/fglt.py --device gpu --scales 14 17 20 --grids 300 \
  --timeout 80 > "$OUT/fglt.log" 2>&1; echo "exit $?" >> "$OUT/fglt.log"
fi
if has gpu; then
log "benchmarks/gpu.py"
timeout "${T_GPU:-150}" python3 benchmarks/gpu.py --scales 18 20 22 --grids 300 1000 \
  --repeats ${GPU_REPEATS:-5} ${GPU_ARGS:-} > "$OUT/gpu_bench.log" 2>&1; echo "exit $?" >> "$OUT/gpu_bench.log"
fi

if has spec18; then
log "spectral: Kronecker 18, the 7000^2 grid, the tridiagonal"
timeout "${T_SPEC18:-100}" python3 benchmarks/spectral.py --device gpu --scales 18 \
  --big-grid 7000 --tridiag 20000 --repeats 9 > "$OUT/spec18.log" 2>&1; echo "exit $?" >> "$OUT/spec18.log"
fi
if has eig1000; then
log "spectral: eigvalsh on the 1000^2 grid"
timeout "${T_EIG1000:-120}" python3 benchmarks/spectral.py --device gpu --grids 1000 \
  --eigsh-max-n 0 --repeats 1 > "$OUT/eig1000.log" 2>&1; echo "exit $?" >> "$OUT/eig1000.log"
fi
if has seed5; then
log "fglt_seed on the GPU"
timeout "${T_SEED5:-150}" python3 benchmarks/fglt_seed.py --device gpu --repeat 3 ${SEED5_ARGS:-} \
  > "$OUT/fglt_seed.log" 2>&1; echo "exit $?" >> "$OUT/fglt_seed.log"
fi
if has traversal; then
log "traversal speculation on the GPU"
timeout "${T_TRAV:-120}" python3 benchmarks/traversal.py --device gpu --grids 300 1000 --profile ${TRAV_ARGS:-} \
  --repeats 3 > "$OUT/traversal.log" 2>&1; echo "exit $?" >> "$OUT/traversal.log"
fi
if has spmv; then
log "spmv bound"
timeout "${T_SPMV:-120}" python3 benchmarks/spmv_bound.py --scales 18 20 22 --grids 1000 \
  > "$OUT/spmv_bound.log" 2>&1; echo "exit $?" >> "$OUT/spmv_bound.log"
fi
if has host; then
log "host cost of one small operation"
timeout "${T_HOST:-60}" python3 benchmarks/host_overhead.py --device gpu --profile \
  > "$OUT/host.log" 2>&1; echo "exit $?" >> "$OUT/host.log"
fi
if has profile; then
log "op_profile on the GPU"
{ timeout "${T_PROF:-80}" python3 benchmarks/op_profile.py --device gpu --algorithms cc sssp bfs pagerank tc --scale 22
  timeout "${T_PROF:-80}" python3 benchmarks/op_profile.py --device gpu --algorithms bfs cc --grid 1000
  timeout "${T_PROF:-80}" python3 benchmarks/op_profile.py --device gpu --algorithms fglt --scale 17
} > "$OUT/profile.log" 2>&1; echo "exit $?" >> "$OUT/profile.log"
fi
if has direction; then
log "direction choice per level on the GPU"
( cd benchmarks && timeout "${T_DIR:-90}" python3 direction.py --device gpu --kron 18 20 22 \
  --grids 300 --repeats 2 ) > "$OUT/direction.log" 2>&1; echo "exit $?" >> "$OUT/direction.log"
fi
if has cpu16; then
log "benchmarks/cpu.py on $(nproc) host cores"
( cd benchmarks && GRAPHBLAST_DEVICE=cpu timeout "${T_CPU:-200}" python3 cpu.py --threads 2 16 \
  --kron 16 18 --grids 300 --repeats 3 ) > "$OUT/cpu16.log" 2>&1; echo "exit $?" >> "$OUT/cpu16.log"
fi

cp "$W/default/table.md" "$OUT/default_table.md" 2>/dev/null
cp "$W/default/time_vs_size.png" "$OUT/default_time_vs_size.png" 2>/dev/null
cp "$W/default/speedup.png" "$OUT/default_speedup.png" 2>/dev/null
cat "$W"/ablation/*.md > "$OUT/ablation.md" 2>/dev/null
ls -la "$W"/* >> "$OUT/run.log" 2>&1
