"""Every file stamps its times one way (clock.utc_now): UTC, to the second, with its offset.

The run's manifest, a rescored run's, harden.json and suite.json each wrote the format themselves
once; a reader that compares or shows them (the suite's page, ``report``) may rely on one form.
"""

from __future__ import annotations

import json
import re

from mmmu_eval.harden.record import Record
from mmmu_eval.run.pipeline import evaluate

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def test_the_run_manifest_and_harden_record_stamp_utc_to_the_second(tmp_path):
    run = evaluate(model="random", data="sample", benchmark="mmmu", split="validation", out=tmp_path / "run", limit=2,
                   html=False)
    record = json.loads(Record.new({"data": "sample"}).save(tmp_path / "harden").read_text(encoding="utf-8"))
    stamps = [run.manifest["started_at"], run.manifest["ended_at"], record["created_at"], record["updated_at"]]
    assert all(STAMP.fullmatch(s) for s in stamps), stamps
