"""A type checker sees the typed keyword arguments as a user's code meets them.

``typing.get_type_hints`` resolving (``test_public_api.py``) says the annotations are valid;
this says they do their job: mypy, run on a user's script against our source, flags a misspelt
run setting, a value of the wrong type, a per-run field given to the suite, and a harden
parameter of the old prefixed kind, and nothing in the correct calls beside them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from fakes import required

SRC = Path(__file__).resolve().parent.parent / "src"

USER_SCRIPT = '''\
import mmmu_eval
from mmmu_eval.harden import AugmentSettings, FilterSettings, RenderSettings, harden_all

result = mmmu_eval.evaluate(model="random", data="sample", limit=3, display=None)
accuracy: float | None = result.results["overall"]["accuracy"]  # None: a void run (no score)
mmmu_eval.evaluate(model="random", temprature=0.0)
mmmu_eval.evaluate(model="random", limit="3")
mmmu_eval.evaluate(model="random", shard="2/8", subjects=["Art"], out="runs/x", base_urls="http://a/v1")
mmmu_eval.evaluate_suite(model="random", setting="vision")
mmmu_eval.evaluate_suite(model="random", settings=["vision"], bootstrap=0, out="suites/x")
mmmu_eval.plan_run(model="openai:x", benchmark="mmmu-pro", keep_backend=True)
harden_all("sample", "hard", filter=FilterSettings(models="frequent"), augment=AugmentSettings(model="x"),
           render=RenderSettings(photo_share=0.0), run_settings={"concurrency": 4})
harden_all("sample", "hard", filter=FilterSettings(models="frequent"), augment=AugmentSettings(model="x"), augment_model="y")
'''

#: line -> what mypy must say there (and nothing else anywhere)
EXPECTED = {
    6: 'Unexpected keyword argument "temprature" for "evaluate"',
    7: 'Argument "limit" to "evaluate" has incompatible type "str"',
    9: 'Unexpected keyword argument "setting" for "evaluate_suite"',
    11: 'Unexpected keyword argument "keep_backend" for "plan_run"',
    14: 'Unexpected keyword argument "augment_model" for "harden_all"',
}


def test_mypy_flags_each_wrong_keyword_and_passes_the_right_ones(tmp_path):
    required.module("mypy", "the typed-arguments check runs mypy (the test-tools extra installs it)")
    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports", "--no-error-summary",
         "--hide-error-context", "--cache-dir", str(tmp_path / "cache"), str(script)],
        capture_output=True, text=True, env={"MYPYPATH": str(SRC), "PATH": ""}, timeout=600,
    )
    errors: dict[int, list[str]] = {}
    for line in out.stdout.splitlines():
        match = re.match(r".*user_script\.py:(\d+): error: (.*)", line)
        if match:
            errors.setdefault(int(match.group(1)), []).append(match.group(2))
    assert out.returncode in (0, 1), out.stdout + out.stderr
    assert set(errors) == set(EXPECTED), out.stdout
    for line, said in EXPECTED.items():
        assert any(e.startswith(said) for e in errors[line]), (line, errors[line])
