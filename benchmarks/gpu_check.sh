#!/usr/bin/env bash
# GPU check of the vllm: and hf: backends (benchmarks/gpu_check.py), on a machine with an NVIDIA
# GPU and a package index but no model hub. Installs into its own venv (.venv-gpu): vLLM first,
# which brings the CUDA build of torch and the transformers it supports, then mmmu-eval with its
# hf extra, without replacing what vLLM chose. Arguments go to gpu_check.py.
#
#   bash benchmarks/gpu_check.sh                  # both backends, 320 items, the table of items/s
#   bash benchmarks/gpu_check.sh --repeat 2       # quicker
# Then, with 2 GPUs or more, the 1-GPU against N-GPU case of a torchrun run (below).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
VENV=${GPU_VENV:-.venv-gpu}
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  python3 -m venv "$VENV"
  "$PY" -m pip install -q --upgrade pip
fi
if ! "$PY" -c "import vllm" 2>/dev/null; then
  "$PY" -m pip install -q vllm
fi
# mmmu-eval and its own needs; torch and transformers stay the versions vLLM installed.
"$PY" -m pip install -q -e . tokenizers pillow
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$PY" benchmarks/gpu_check.py "$@"

# 1 GPU against N GPUs: the same `mmmu-eval run` as one process on GPU 0, then as one torchrun rank
# per visible GPU (docs/parallel.md); wall time, items/s and how many greedy answers agree (float16
# batches are padded differently per shard, so a few may differ). Needs at least 2 GPUs.
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${NGPU:-0}" -lt 2 ]; then
  echo "1 GPU against N: skipped (${NGPU:-0} GPU visible; needs 2 or more)"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PY" - "$WORK/llava" <<'PYEOF'
import sys
sys.path.insert(0, "tests")
from fakes.tiny_models import build_tiny_llava
build_tiny_llava(sys.argv[1], hidden_size=128, heads=2, initializer_range=0.3)
PYEOF
ARGS=(--model "hf:$WORK/llava" --data sample --benchmark mmmu --split validation --max-tokens 16
      --batch-size 8 --dtype float16 --no-html)
t0=$(date +%s.%N)
CUDA_VISIBLE_DEVICES=0 "$PY" -m mmmu_eval run "${ARGS[@]}" --device cuda --out "$WORK/one" > "$WORK/one.log" 2>&1
t1=$(date +%s.%N)
"$PY" -m torch.distributed.run --standalone --nproc-per-node "$NGPU" -m mmmu_eval run "${ARGS[@]}" \
  --out "$WORK/many" > "$WORK/many.log" 2>&1
t2=$(date +%s.%N)
"$PY" - "$WORK" "$NGPU" "$t0" "$t1" "$t2" <<'PYEOF'
import json, sys
from pathlib import Path
work, n, t0, t1, t2 = Path(sys.argv[1]), int(sys.argv[2]), *map(float, sys.argv[3:])
rows = [{r["id"]: r for r in map(json.loads, (work / d / "predictions.jsonl").read_text().splitlines())}
        for d in ("one", "many")]
same = sum(rows[0][i].get("response") == rows[1].get(i, {}).get("response") for i in rows[0])
items = len(rows[0])
print(f"1 GPU : {t1 - t0:6.1f} s for {items} items, {items / (t1 - t0):.1f} items/s (the command, start-up included)")
print(f"{n} GPUs: {t2 - t1:6.1f} s for {len(rows[1])} items, {len(rows[1]) / (t2 - t1):.1f} items/s (torchrun, one rank per GPU)")
print(f"ratio {n} / 1: {(t1 - t0) / (t2 - t1):.2f}x; same greedy answer on {same} of {items} items")
sys.exit(0 if len(rows[1]) == items else 1)
PYEOF
