"""GPU check of the local backends: ``vllm:`` (offline ``LLM``) and ``hf:`` on a tiny random LLaVA.

Made to run on a machine with an NVIDIA GPU and no hub access; ``benchmarks/gpu_check.sh``
installs what it needs from the package index first (vLLM with its own torch and transformers,
then mmmu-eval). Nothing is downloaded at run time: the model is built on the spot, offline, by
the tests' own builder (``tests/fakes/tiny_models.py``), sized for vLLM's attention kernels (head
size 64) and with a weight scale that keeps greedy decoding stable across kernels.

What it checks, over the bundled sample (MMMU validation, 40 items, repeated ``--repeat`` times
under new ids):

1. each backend answers every item (status ok or truncated, never error or missing), driven
   as the runner drives it (``preflight`` then ``generate``);
2. ``vllm:`` and ``hf:`` give the same greedy text for the same model, item by item (at least
   ``--agree`` of the items; mismatches are printed);
3. items per second at several batch sizes (``--hf-batch``, ``--vllm-batch``: ``--batch-size``
   of each backend), the engine loaded once;
4. the ``mmmu-eval run`` command itself with each backend on the sample, exit status 0.

It exits 1 when a check fails. Where no GPU is present, ``--device cpu --backends hf`` runs the
hf half on the CPU (a dry run of everything but vLLM).

    bash benchmarks/gpu_check.sh                          # install, then this script
    python benchmarks/gpu_check.py --device cpu --backends hf --repeat 1 --hf-batch 1 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from mmmu_eval.core.config import RunConfig  # noqa: E402
from mmmu_eval.core.records import Request, Response  # noqa: E402

#: Each backend's settings for the check: greedy, a few new tokens (the agreement check compares them all).
MAX_TOKENS = 16


@dataclass
class Timed:
    """One generate() pass of a backend at one batch size."""

    backend: str
    batch: int
    seconds: float
    responses: dict[str, Response]

    @property
    def rate(self) -> float:
        return len(self.responses) / self.seconds if self.seconds > 0 else float("inf")

    @property
    def unfinished(self) -> list[str]:
        return [i for i, r in self.responses.items() if r.status not in ("ok", "truncated")]


def sample_requests(repeat: int) -> list[Request]:
    """The bundled MMMU validation sample as the official protocol asks it, ``repeat`` times."""
    from mmmu_eval.dataset.load import load_dataset
    from mmmu_eval.prompt.protocol import EvalProtocol, build_request

    config = RunConfig(model="random", benchmark="mmmu", split="validation", data="sample", max_tokens=MAX_TOKENS)
    protocol = EvalProtocol.from_config(config)
    base = [build_request(item, protocol) for item in load_dataset("mmmu", split="validation", data="sample").items]
    return [replace(r, item_id=r.item_id if k == 0 else f"{r.item_id}-copy{k}") for k in range(repeat) for r in base]


def build_model(directory: Path) -> Path:
    from fakes.tiny_models import build_tiny_llava

    if (directory / "config.json").exists():
        return directory
    return build_tiny_llava(directory, hidden_size=128, heads=2, initializer_range=0.3)


async def drive(spec: str, config: RunConfig, requests: list[Request], batches: list[int]) -> list[Timed]:
    """Preflight once (the engine loads), then one generate() pass per batch size."""
    from mmmu_eval.backends.registry import make_backend
    from mmmu_eval.run.backend_settings import backend_settings

    backend = make_backend(spec, backend_settings(config))
    kind = spec.split(":", 1)[0]
    try:
        started = time.perf_counter()
        await backend.preflight(requests)
        print(f"{kind}: engine ready in {time.perf_counter() - started:.1f} s", flush=True)
        passes = []
        for batch in batches:
            setattr(backend, "chunk_size" if kind == "vllm" else "batch_size", batch)
            started = time.perf_counter()
            responses = {r.item_id: r async for r in backend.generate(requests)}
            passes.append(Timed(kind, batch, time.perf_counter() - started, responses))
            print(f"{kind}: batch {batch}: {passes[-1].rate:.1f} items/s", flush=True)
        return passes
    finally:
        await backend.aclose()


def drive_in_child(kind: str, model: Path, args: argparse.Namespace, work: Path) -> list[Timed]:
    """``drive`` in a process of its own, so each engine's GPU memory is gone when it ends."""
    out = work / f"passes-{kind}.json"
    command = [sys.executable, __file__, "--child", kind, str(model), str(out), "--dtype", args.dtype,
               "--device", args.device, "--repeat", str(args.repeat),
               "--hf-batch", *map(str, args.hf_batch), "--vllm-batch", *map(str, args.vllm_batch)]
    done = subprocess.run(command)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"the {kind} pass failed (exit {done.returncode}); its output is above")
    passes = json.loads(out.read_text())
    return [Timed(kind, p["batch"], p["seconds"],
                  {i: Response(i, status, text=text) for i, (status, text) in p["responses"].items()})
            for p in passes]


def child(kind: str, model: Path, out: Path, args: argparse.Namespace) -> None:
    config = RunConfig(model=f"{kind}:{model}", dtype=args.dtype, max_tokens=MAX_TOKENS,
                       device=args.device if kind == "hf" else None)
    batches = args.vllm_batch if kind == "vllm" else args.hf_batch
    passes = asyncio.run(drive(f"{kind}:{model}", config, sample_requests(args.repeat), batches))
    out.write_text(json.dumps([{"batch": t.batch, "seconds": t.seconds,
                                "responses": {i: [r.status, r.text] for i, r in t.responses.items()}} for t in passes]))


def agreement(a: dict[str, Response], b: dict[str, Response]) -> tuple[float, list[str]]:
    """Share of items whose texts are equal, and a line for each that is not."""
    common = sorted(set(a) & set(b))
    differ = [f"  {i}: vllm {a[i].text!r} / hf {b[i].text!r}" for i in common if a[i].text != b[i].text]
    return (1 - len(differ) / len(common)) if common else 0.0, differ


def run_command(spec: str, device: str, dtype: str, out: Path) -> tuple[int, str]:
    """``mmmu-eval run`` on the sample with this backend, as a user types it."""
    command = [sys.executable, "-m", "mmmu_eval.cli.main", "run", "--benchmark", "mmmu", "--split", "validation",
               "--data", "sample", "--model", spec, "--dtype", dtype, "--max-tokens", str(MAX_TOKENS),
               "--out", str(out)]
    if spec.startswith("hf:"):
        command += ["--device", device]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr)[-2000:]


def check_gpu(device: str, backends: list[str]) -> None:
    if device == "cpu" and "vllm" not in backends:
        return
    import torch

    if not torch.cuda.is_available():
        sys.exit("no CUDA device is visible (nvidia-smi, CUDA_VISIBLE_DEVICES); for a CPU dry run of the hf "
                 "half pass --device cpu --backends hf")
    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", nargs="+", choices=["vllm", "hf"], default=["vllm", "hf"])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="hf device (vLLM always uses the GPU)")
    parser.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16",
                        help="weights and activations of both backends (the same, for the agreement check)")
    parser.add_argument("--repeat", type=int, default=8, help="copies of the 40-item sample (default 8: 320 items)")
    parser.add_argument("--hf-batch", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--vllm-batch", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--agree", type=float, default=0.95,
                        help="least share of items on which vllm: and hf: must give the same greedy text")
    parser.add_argument("--workdir", type=Path, help="keep the model and the run directories here")
    parser.add_argument("--no-command", action="store_true", help="skip the `mmmu-eval run` checks")
    parser.add_argument("--child", nargs=3, metavar=("KIND", "MODEL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, model, out = args.child
        child(kind, Path(model), Path(out), args)
        return 0
    if args.repeat < 1 or min(args.hf_batch + args.vllm_batch) < 1 or not 0 <= args.agree <= 1:
        parser.error("--repeat and batch sizes must be at least 1, --agree between 0 and 1")
    check_gpu(args.device, args.backends)

    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        model = build_model(work / "tiny-llava-128")
        requests = sample_requests(args.repeat)
        print(f"model {model} (tiny random LLaVA, hidden 128); {len(requests)} requests; dtype {args.dtype}", flush=True)
        results: dict[str, list[Timed]] = {}
        for kind in args.backends:
            results[kind] = drive_in_child(kind, model, args, work)
            for timed in results[kind]:
                if len(timed.responses) != len(requests) or timed.unfinished:
                    failures.append(f"{kind} batch {timed.batch}: {len(timed.responses)} of {len(requests)} answered, "
                                    f"unfinished: {timed.unfinished[:5]}")
                elif timed.responses.keys() != {r.item_id for r in requests}:
                    failures.append(f"{kind} batch {timed.batch}: answers for items that were not asked")
        if len(results) == 2:
            share, differ = agreement(results["vllm"][0].responses, results["hf"][0].responses)
            print(f"vllm: and hf: give the same greedy text on {share:.1%} of the items")
            if differ:
                print("\n".join(differ[:10]))
            if share < args.agree:
                failures.append(f"greedy texts agree on {share:.1%} of the items, less than --agree {args.agree:.0%}")
            for kind in results:  # each backend with itself, batch against batch: batching changes nothing
                first = results[kind][0]
                for other in results[kind][1:]:
                    same = sum(first.responses[i].text == r.text for i, r in other.responses.items() if i in first.responses)
                    if same < args.agree * len(requests):
                        failures.append(f"{kind}: batch {other.batch} differs from batch {first.batch} on "
                                        f"{len(requests) - same} items")
        if not args.no_command:
            for kind in args.backends:
                out = work / f"run-{kind}"
                shutil.rmtree(out, ignore_errors=True)
                status, tail = run_command(f"{kind}:{model}", args.device, args.dtype, out)
                print(f"mmmu-eval run --model {kind}:...: exit {status}", flush=True)
                if status != 0:
                    failures.append(f"`mmmu-eval run --model {kind}:` exited {status}:\n{tail}")

    print("\n| backend | batch size | items/s | items |")
    print("|---|---|---|---|")
    for kind, passes in results.items():
        for timed in passes:
            print(f"| {kind}: | {timed.batch} | {timed.rate:.1f} | {len(timed.responses)} |")
    if failures:
        print("\nFAILED:\n" + "\n".join(f"- {f}" for f in failures))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
