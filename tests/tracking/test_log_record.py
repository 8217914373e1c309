"""What is logged, before any SDK: scoped names, void figures left out, bounded params, safe lines.

The figures are read from results.json files written by real runs (a ``--sample`` run, a run with
an empty cell), so the names follow what the runs write, not what a hand-made dict says.
"""

from __future__ import annotations

import pytest

from fakes.parquet_rows import mmmu_row, write_mmmu
from fakes.scripted_backend import ScriptedBackend
from mmmu_eval import ConfigError, LogTo, evaluate
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.tracking import as_log_to
from mmmu_eval.tracking.build import run_record
from mmmu_eval.tracking.metrics import run_figures
from mmmu_eval.tracking.log_record import PARAM_CHARS, metric_name, param_value
from mmmu_eval.tracking.send import one_line


@pytest.fixture(scope="module")
def val_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("val")
    for subject in ("Art", "Math"):
        write_mmmu(root, subject, "validation", [mmmu_row(f"validation_{subject}_{i}") for i in range(1, 11)])
    return root


def test_a_sampled_run_logs_the_sample_s_figures_and_the_full_set_s_interval_as_such(val_data, tmp_path):
    result = evaluate(model=ScriptedBackend(["(B)"] * 3 + ["(C)"] * 5), benchmark="mmmu", split="validation",
                      data=str(val_data), sample=8, out=tmp_path / "sampled", display=NullDisplay())
    figures = run_figures(result.results)
    assert {name.split("/")[0] for name in figures.metrics} == {"sampled"}
    assert figures.metrics["sampled/overall/accuracy"] == 3 / 8
    low, high = result.results["sample"]["full_set_interval95"]
    assert (figures.metrics["sampled/full_set_estimate/interval95_low"],
            figures.metrics["sampled/full_set_estimate/interval95_high"]) == (low, high)


def test_a_figure_over_no_scored_item_is_left_out_and_said_not_logged_as_zero(val_data, tmp_path):
    # Every request fails: there is no accuracy (its 0/0 is no figure), only the counts.
    result = evaluate(model=ScriptedBackend([RuntimeError("HTTP 500")] * 20), benchmark="mmmu", split="validation",
                      data=str(val_data), max_attempts=1, out=tmp_path / "failed", display=NullDisplay())
    record = run_record(result.run_dir, LogTo(("mlflow",)))
    assert result.results["overall"]["n"] == 0 and result.results["gold_available"]
    assert not [name for name in record.metrics if "accuracy" in name or "ci95" in name]
    assert record.metrics["subset/coverage/errors"] == 20 and record.tags["mmmu_eval.status"] == "incomplete"
    assert record.not_logged[0] == ("subset/overall: no scored item (no item could be scored: 20 failed, "
                                    "see responses.jsonl)")
    assert record.tags["mmmu_eval.not_logged"].startswith("subset/overall: no scored item")
    assert record.tags["mmmu_eval.void"].startswith("no item could be scored: 20 failed")


def test_metric_names_are_safe_for_both_sdks_and_params_are_bounded():
    assert metric_name("full", "discipline", "Art and Design", "accuracy") == "full/discipline/Art_and_Design/accuracy"
    assert metric_name("subset", "a/b & c") == "subset/a_b_c"
    assert param_value(0.5) == 0.5 and param_value(True) is True and param_value(["a", "b"]) == '["a", "b"]'
    long = param_value("x" * 5000)
    assert len(long) == PARAM_CHARS and long.endswith("(5000 characters; the whole value is in manifest.json)")


def test_an_sdk_s_message_becomes_one_bounded_line_a_terminal_shows_as_text():
    line = one_line(OSError("server said:\x1b[2J\n\tgo away\x07" + "!" * 400))
    assert line.startswith("OSError: server said:\\x1b[2J go away\\x07!!")
    assert "\x1b" not in line and "\n" not in line and "\x07" not in line and len(line) == 300


def test_log_to_takes_a_name_a_list_or_a_log_to_and_refuses_what_it_cannot_use(sdks_installed):
    assert as_log_to(None) is None and as_log_to([]) is None
    assert as_log_to("wandb") == LogTo(("wandb",)) and as_log_to(["mlflow", "wandb"]).sinks == ("mlflow", "wandb")
    with pytest.raises(ConfigError, match="did you mean mlflow"):
        as_log_to("mlfow")
    with pytest.raises(ConfigError, match="names a sink twice"):
        as_log_to(["wandb", "wandb"])
    with pytest.raises(ConfigError, match="log_to must be"):
        as_log_to(3)  # type: ignore[arg-type]
