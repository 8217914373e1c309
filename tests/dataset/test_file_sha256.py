"""``file_sha256``: the one digest of a single file that is no dataset, recorded where it is read.

A rescored run's manifest records the sha256 of every file it read (``rescored_from.files``),
so a reader can tell later whether the harness file changed; it must be the file's plain
sha256, as ``sha256sum`` prints it, whatever its size (it is read in 1 MiB blocks).
"""

from __future__ import annotations

import hashlib
import json

from fakes.harness_outputs import write_jsonl
from mmmu_eval.dataset.digest import file_sha256
from mmmu_eval.harnesses.read import rescore
from mmmu_eval.harnesses.write import write_rescored_run


def test_a_file_across_block_boundaries_has_its_plain_sha256(tmp_path):
    data = bytes(range(256)) * (3 * 4096 + 17)  # about 3 MiB: several blocks and a short tail
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert file_sha256(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()


def test_a_rescored_run_records_the_plain_sha256_of_the_file_it_read(tmp_path):
    acc = {"id": "validation_Accounting_2", "subdomain": "Accounting", "question_type": "multiple-choice",
           "answer": "B", "parsed_pred": ["B"]}
    log = write_jsonl(tmp_path / "logs" / "20250101_samples_mmmu_val.jsonl", [
        {"doc_id": 1, "filtered_resps": "The answer is B.", "input": "prompt", "mmmu_acc": acc, "mmmu_acc_pass_at_k": acc}])
    write_rescored_run(rescore(log, data="sample"), tmp_path / "run", html=False)
    files = json.loads((tmp_path / "run" / "manifest.json").read_text())["rescored_from"]["files"]
    assert [f["sha256"] for f in files if f["path"] == str(log.resolve())] == [hashlib.sha256(log.read_bytes()).hexdigest()]
