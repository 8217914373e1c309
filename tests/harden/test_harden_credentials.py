"""A filter model's server behind Basic auth (``--base-url http://user:secret@host/v1`` and
``SPEC@URL``): the credentials are sent, and written nowhere harden writes (harden.json, the trial
and proposal run directories, the report pages) nor printed, even with ``-v``.

Before: harden.json kept every filter model's endpoints as given, ``user:secret@`` included, and
the augment step's text-only check read them back from there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer, write_jsonl_set
from fakes.processes import offline_environment
from mmmu_eval.harden.step_settings import CheckSettings

USER, SECRET = "evaluator", "pw-Harden-Secret-7391"


def harden(*args: str) -> subprocess.CompletedProcess:
    env = offline_environment()
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run([sys.executable, "-m", "mmmu_eval", "-v", "harden", *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def files_holding(root: Path, secret: str) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.slow
def test_a_filter_servers_credentials_are_sent_and_written_nowhere(mmmu_set, tmp_path):
    out = tmp_path / "hard"
    with FaultServer(fault_rate=0.0, answer=Proposer({}), basic_auth=(USER, SECRET)) as server:
        secret_url = server.url_with_credentials
        models = f"openai:fake-model,openai:fake-model@{secret_url},frequent,random"
        filtered = harden("filter", "--data", str(mmmu_set), "--out", str(out), "--models", models,
                          "--base-url", secret_url, "--trials", "2", "--per-subject", "0", "--concurrency", "4")
        augmented = harden("augment", "--data", str(out), "--out", str(out), "--model", "openai:fake-model",
                           "--base-url", secret_url, "--concurrency", "4")
        unauthorised = server.stats["unauthorised"]
    assert filtered.returncode == 0, filtered.stderr[-3000:]
    assert augmented.returncode == 0, augmented.stderr[-3000:]
    assert unauthorised == 0, "every request carried the Basic auth, the check's included"
    record = json.loads((out / "harden.json").read_text())
    assert [m["base_urls"] for m in record["steps"]["filter"]["models"]] == [[server.url], [server.url], [server.url], [server.url]]
    check = record["steps"]["augment"]["check"]
    asked = [m["label"] for m in record["steps"]["filter"]["models"][:2]]
    assert check["status"] == "complete" and all(check["accuracy"][label] is not None for label in asked)
    assert all((out / "runs" / "filter" / label / "trial-01" / "manifest.json").is_file() for label in asked)
    assert files_holding(tmp_path, SECRET) == []
    for done in (filtered, augmented):
        assert SECRET not in done.stdout and SECRET not in done.stderr


def test_the_api_key_never_reaches_the_proposals_manifest(tmp_path, monkeypatch):
    """The augment step's run directory is written through ``run.pipeline.with_backend``, as a
    run's: a backend that describes itself with the key in it has the key blanked."""
    import mmmu_eval.harden.augment as augment
    from mmmu_eval.harden import AugmentSettings, harden_augment

    key = "sk-proposer-secret-98765"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    made = augment.make_backend

    def leaky(model, settings):
        backend = made(model, settings)
        described = backend.describe
        backend.describe = lambda: {**described(), "headers": {"Authorization": f"Bearer {key}"}}
        return backend

    monkeypatch.setattr(augment, "make_backend", leaky)
    row = {"id": "test_Biology_1", "question": "apple: which organ pumps blood?", "options": ["heart", "lung", "liver", "skin"], "answer": "A"}
    data = write_jsonl_set(tmp_path / "set", [row])
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        result = harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url], check=CheckSettings(models="")))
    assert result.exit_status == 0
    assert "<redacted>" in (tmp_path / "hard" / "runs" / "augment" / "manifest.json").read_text()
    assert files_holding(tmp_path / "hard", key) == []
