#!/usr/bin/env bash
# GPU check of the vllm: and hf: backends (benchmarks/gpu_check.py), on a machine with an NVIDIA
# GPU and a package index but no model hub. Installs into its own venv (.venv-gpu): vLLM first,
# which brings the CUDA build of torch and the transformers it supports, then mmmu-eval with its
# hf extra, without replacing what vLLM chose. Arguments go to gpu_check.py.
#
#   bash benchmarks/gpu_check.sh                  # both backends, 320 items, the table of items/s
#   bash benchmarks/gpu_check.sh --repeat 2       # quicker
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
exec "$PY" benchmarks/gpu_check.py "$@"
