"""What a huge answer costs a run in memory: peak resident memory when one answer is ``--mb``
megabytes (issue 29: a 20 MB answer cost about 80 MB while in flight).

The project's fake server (``tests/fakes/fault_server.py``, in this process) answers the first
``--limit`` sample items; one of them (the first) with an answer of ``--mb`` MB of plain text, the
others with a short one. Each figure is measured in a fresh process, as the peak of the memory
Python allocated (``tracemalloc``: what the code holds, not what the C allocator keeps from the
system afterwards, which depends on its thresholds), so nothing of this process is counted,
against the same process with every answer short; the figure is the extra peak memory per byte
of the answer (1.0: the answer is held once at its worst moment). Two scopes:

- ``in flight + stored``: the OpenAI backend receives the answers and ``RunStore.append`` writes
  each (received, parsed, stored), nothing else;
- ``whole run``: ``mmmu-eval run``, which also reads the run back, scores it (the official
  parser copies the text a few times: left as it is, it is the official code's) and writes
  predictions.jsonl and, with ``--html``, report.html.

``--src`` runs another checkout's package (e.g. ``--src /work/main/src``) to compare before/after.

``--no-answer`` ends the huge answer without an answer phrase (issue 40): the first item is an open
question, whose official prediction is then the answer's whole lowercased text. Every copy of it
(predictions.jsonl's ``response`` and ``pred``, results.json's verdicts, report.html) is capped
(``untrusted.capped``); the sizes of those files in the huge run are printed beside the memory.

    python benchmarks/huge_answer.py                       # 20 MB, report.html off and on
    python benchmarks/huge_answer.py --mb 50 --src ../main/src
    python benchmarks/huge_answer.py --mb 200 --no-answer --repeats 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

#: Runs ``mmmu-eval`` with the arguments in argv[1:] under tracemalloc; prints the peak in bytes.
_MEASURE = ("import runpy, sys, tracemalloc\n"
            "tracemalloc.start()\n"
            "sys.argv = ['mmmu-eval', *sys.argv[1:]]\n"
            "try:\n"
            "    runpy.run_module('mmmu_eval', run_name='__main__')\n"
            "except SystemExit as done:\n"
            "    if done.code not in (0, None):\n"
            "        raise\n"
            "print(tracemalloc.get_traced_memory()[1])\n")


def peak_bytes(argv: list[str], env: dict[str, str]) -> int:
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv[:8])} ... failed:\n{done.stderr[-2000:]}")
    return int(done.stdout.strip().splitlines()[-1])


#: The in-flight scope: argv = url, out directory, limit, tests folder; prints the peak in bytes.
_IN_FLIGHT = ("import asyncio, sys, tracemalloc\n"
              "tracemalloc.start()\n"
              "sys.path.insert(0, sys.argv[4])\n"
              "from fakes.fault_server import sample_requests\n"
              "from mmmu_eval.backends.openai_api import OpenAIBackend\n"
              "from mmmu_eval.store.rundir import RunStore\n"
              "requests = sample_requests()[: int(sys.argv[3])]\n"
              "manifest = {'config': {'model': 'openai:fake-model', 'benchmark': 'mmmu', 'split': 'validation', 'setting': None},\n"
              "            'protocol': {'fingerprint': 'f' * 64, 'mode': 'direct', 'generation': {}}, 'started_at': '2026-01-01T00:00:00+00:00'}\n"
              "async def main():\n"
              "    backend = OpenAIBackend('fake-model', base_urls=[sys.argv[1]], api_key='k', concurrency=1)\n"
              "    store = RunStore.open(sys.argv[2], manifest, resume=False)\n"
              "    async for response in backend.generate(requests):\n"
              "        store.append(response)\n"
              "        del response\n"
              "    store.close()\n"
              "    await backend.aclose()\n"
              "asyncio.run(main())\n"
              "print(tracemalloc.get_traced_memory()[1])\n")


def main() -> None:
    from fakes.fault_server import PROBE_TEXT, FaultServer, request_key

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="size of the huge answer in MB (default 20)")
    parser.add_argument("--limit", type=int, default=3, help="items in the run (default 3)")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the package source to run (default this checkout's)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the smallest peak counts (default 3)")
    parser.add_argument("--no-answer", action="store_true",
                        help="end the huge answer without an answer phrase: the open question's prediction is its whole text")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(args.src.resolve())}
    env.pop("OPENAI_API_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    size = int(args.mb * 1_000_000)
    # A reasoning-like text: words and newlines, ASCII, ending in the answer line.
    ending = "\nI cannot tell." if args.no_answer else "\nThe answer is (A)."
    huge = ("Let me think about the options step by step.\n" * (size // 45 + 1))[: size - len(ending)] + ending
    state = {"first": None}

    def answer(body: dict) -> str:
        text = request_key(body)
        if text.startswith(PROBE_TEXT):
            return "A"
        if state["first"] is None:
            state["first"] = text
        return huge if (state["huge"] and text == state["first"]) else "The answer is (A)."

    scopes = {
        "in flight + stored": lambda url, out: [sys.executable, "-c", _IN_FLIGHT, url, str(out), str(args.limit), str(ROOT / "tests")],
        "whole run": lambda url, out: [sys.executable, "-c", _MEASURE, "run", "--model", "openai:fake-model",
                                       "--base-url", url, "--data", "sample", "--limit", str(args.limit),
                                       "--concurrency", "1", "--out", str(out), "--no-html"],
        "whole run, --html": lambda url, out: [sys.executable, "-c", _MEASURE, "run", "--model", "openai:fake-model",
                                               "--base-url", url, "--data", "sample", "--limit", str(args.limit),
                                               "--concurrency", "1", "--out", str(out), "--html"],
    }
    rows = []
    sizes: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for scope, command in scopes.items():
            figures = {}
            for kind in ("short", "huge"):
                peaks = []
                for n in range(args.repeats):
                    state.update(first=None, huge=kind == "huge")
                    out = Path(tmp) / f"{len(rows)}-{kind}-{n}"
                    with FaultServer(fault_rate=0.0, answer=answer) as server:
                        argv = command(server.url, out)
                        peaks.append(peak_bytes(argv, env))
                    if kind == "huge":
                        with (out / "responses.jsonl").open(encoding="utf-8") as fh:
                            longest = max(len(json.loads(line)["text"]) for line in fh)
                        assert longest == len(huge), "the huge answer was stored whole"
                        sizes[scope] = {f.name: f.stat().st_size for f in sorted(out.iterdir())
                                        if f.name in ("responses.jsonl", "predictions.jsonl", "results.json", "report.html")}
                figures[kind] = min(peaks)
            extra = figures["huge"] - figures["short"]
            rows.append((scope, figures["short"] / 2**20, figures["huge"] / 2**20, extra / 1e6, extra / len(huge)))
    print(f"package: {args.src}   answer: {len(huge) / 1e6:.1f} MB   items: {args.limit}   best of {args.repeats}")
    print(f"{'scope':<20} {'short (MiB)':>12} {'huge (MiB)':>11} {'extra (MB)':>11} {'x answer':>9}")
    for scope, short, big, extra_mb, ratio in rows:
        print(f"{scope:<20} {short:>12.1f} {big:>11.1f} {extra_mb:>11.1f} {ratio:>9.2f}")
    print("\nfiles of the huge run (bytes; the whole answer only in responses.jsonl):")
    for scope, files in sizes.items():
        print(f"{scope:<20} " + "  ".join(f"{name} {size:,}" for name, size in files.items()))


if __name__ == "__main__":
    main()
