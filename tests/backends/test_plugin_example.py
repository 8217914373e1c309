"""The plug-in example package (examples/plugin), installed with pip as a user installs it, run
through the CLI and ``evaluate``; and the rules docs/guides/custom-model.md states.

The package is copied out of the tree and installed with ``pip install --no-deps --target``
into a folder put on ``PYTHONPATH``: its entry points are then found exactly as an installed
distribution's are (``importlib.metadata`` reads the dist-info pip wrote).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmmu_eval.backends.registry import ENTRY_POINT_GROUP, make_backend
from mmmu_eval.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin"
GUIDE = ROOT / "docs" / "guides" / "custom-model.md"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """examples/plugin installed by pip into a target folder (no network, no dependencies)."""
    work = tmp_path_factory.mktemp("plugin")
    source = work / "source"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert list(target.glob("mmmu_eval_example_plugin-*.dist-info"))
    return target


def _env(site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mmmu_eval", *args], env=_env(site), capture_output=True, text=True,
                          timeout=180)


def _texts(run: Path) -> dict[str, str]:
    rows = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines() if line.strip()]
    return {row["item_id"]: row["text"] for row in rows}


SAMPLE = ("--benchmark", "mmmu-pro", "--setting", "standard-10", "--data", "sample")


def test_the_factory_form_runs_from_the_command_line(installed, tmp_path):
    done = _cli(installed, "run", *SAMPLE, "--model", "letter:c", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-2000:]
    texts = _texts(tmp_path / "run")
    assert len(texts) == 24 and set(texts.values()) == {"The answer is (C)."}
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["model"] == "letter:c"
    assert manifest["backend"]["model"] == "letter:C"  # the function's own spec, as the example sets it


def test_the_class_form_gets_the_run_s_settings_and_answers_the_same_on_a_rerun(installed, tmp_path):
    runs = []
    for n in (1, 2):
        out = tmp_path / f"run{n}"
        done = _cli(installed, "run", *SAMPLE, "--model", "guess:salt", "--seed", "3", "--batch-size", "5", "--out", str(out))
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(_texts(out))
    assert runs[0] == runs[1] and len(runs[0]) == 24
    assert all(re.search(r"image\(s\) read; the answer is \([A-J]\)\.$", text) for text in runs[0].values())
    backend = json.loads((tmp_path / "run1" / "manifest.json").read_text())["backend"]
    assert backend == {"backend": "guess", "name": "salt", "seed": 3, "batch_size": 5}


def test_evaluate_takes_a_plugin_spec(installed, tmp_path):
    script = ("import mmmu_eval\n"
              "r = mmmu_eval.evaluate(model='letter:B', benchmark='mmmu-pro', data='sample', out='run')\n"
              "print(r.exit_status, r.counts['ok'], r.manifest['config']['model'])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=_env(installed), capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "24", "letter:B"]


@pytest.mark.parametrize(("model", "extra", "said"), [
    ("letter:Z", (), "--model letter:Z: write one option letter from A to J"),
    ("guess:x", ("--batch-size", "100"), "--batch-size 100 is more than this model takes"),
    ("guess", (), "did you mean guess:NAME?"),
], ids=["factory-refuses-its-name", "class-refuses-a-setting", "no-colon"])
def test_a_bad_plugin_spec_is_one_line_and_exit_status_2(installed, tmp_path, model, extra, said):
    done = _cli(installed, "run", *SAMPLE, "--model", model, *extra, "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "responses.jsonl").exists()  # refused before any item was asked


def test_the_guide_shows_the_tested_package_and_no_example_is_cut_short():
    guide = GUIDE.read_text()
    for path in ("examples/plugin/pyproject.toml", "examples/plugin/mmmu_eval_example_plugin/letter.py",
                 "examples/plugin/mmmu_eval_example_plugin/guess.py"):
        assert f'--8<-- "{path}"' in guide, f"the guide does not include {path}"
    blocks = re.findall(r"```\w*\n(.*?)```", guide, flags=re.S)
    assert blocks and not [b for b in blocks if b.rstrip().endswith("...") or "\n    ...  #" in b]


# -- the registry's rules: a broken plug-in is named, a partial one completed ------------------

PARTIAL = """
from mmmu_eval.core.records import Response


def make(name):
    return lambda messages: "A"


class Partial:
    \"\"\"A class form whose from_settings gives an object with generate only.\"\"\"

    @classmethod
    def from_settings(cls, name, settings):
        return cls()

    async def generate(self, requests):
        for request in requests:
            yield Response(request.item_id, "ok", text="A")
"""


@pytest.fixture
def odd_plugins(tmp_path, monkeypatch):
    """A distribution whose entry points name a module only, a module that cannot import, and a
    class whose ``from_settings`` gives an object with ``generate`` only."""
    site = tmp_path / "site"
    info = site / "broken_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nmodonly = broken_plugin_ok\nneeds = broken_plugin_needs:make\n"
        "partial = broken_plugin_ok:Partial\n")
    (site / "broken_plugin_ok.py").write_text(PARTIAL)
    (site / "broken_plugin_needs.py").write_text("import a_module_nobody_installed\n")
    monkeypatch.syspath_prepend(str(site))
    return site


def test_an_entry_point_naming_a_module_only_is_refused_naming_the_package(odd_plugins):
    with pytest.raises(ConfigError, match=r"--model modonly:x: the entry point modonly = 'broken_plugin_ok' "
                                          r"\(package broken-plugin\) names a module; it must name module:attribute"):
        make_backend("modonly:x")


def test_a_plugin_that_cannot_import_names_its_package_not_ours(odd_plugins):
    with pytest.raises(ConfigError) as caught:
        make_backend("needs:x")
    message = str(caught.value)
    assert "the plug-in broken_plugin_needs (package broken-plugin) cannot be imported" in message
    assert "a_module_nobody_installed" in message and "reinstall mmmu-eval" not in message


def test_a_class_form_giving_generate_only_is_completed_as_a_factory_s_model_is(odd_plugins):
    backend = make_backend("partial:x")
    assert backend.spec == "python:broken_plugin_ok.Partial"
    assert backend.describe() == {"backend": "python", "model": "python:broken_plugin_ok.Partial"}
