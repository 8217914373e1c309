"""The MMMU-Pro headline number, which the official code does not compute.

The convention of the MMMU-Pro paper and leaderboard (official-protocol.md 6.5): MMMU-Pro =
mean(standard with 10 options, vision), each taking the better of direct and chain-of-thought
prompting when both were run. Standard with 4 options is diagnostic only and never enters it.

>>> pro_headline({("standard-10", "direct"): 40.12, ("standard-10", "cot"): 55.03,
...               ("vision", "direct"): 42.43, ("vision", "cot"): 50.06})["headline"]
52.545
"""

from __future__ import annotations

from collections.abc import Mapping

from mmmu_eval.core.errors import ConfigError

#: The settings the headline averages.
HEADLINE_SETTINGS: tuple[str, ...] = ("standard-10", "vision")
_ALIASES = {
    "standard-10": "standard-10", "standard (10 options)": "standard-10", "standard(10 options)": "standard-10",
    "standard": "standard-10", "standard-4": "standard-4", "standard (4 options)": "standard-4",
    "standard(4 options)": "standard-4", "vision": "vision",
}
_MODES = ("direct", "cot")


def pro_headline(results_by_run: Mapping[tuple[str, str], float]) -> dict:
    """Combine per-run MMMU-Pro accuracies into the headline.

    Args:
        results_by_run: ``(setting, mode) -> accuracy`` (any scale, e.g. 0-1 or percent; the
            result uses the same). Settings may be written ``standard-10`` or as the hub config
            name ``standard (10 options)``; modes are ``direct`` and ``cot``.

    Returns:
        ``{"headline": float | None, "settings": {setting: {"accuracy", "mode", "runs"}},
        "missing": [setting, ...], "rule": str}``; ``headline`` is None when either headline
        setting has no run (``missing`` names it).

    Raises:
        ConfigError: an unknown setting or mode.
    """
    runs: dict[str, dict[str, float]] = {}
    for (setting, mode), accuracy in results_by_run.items():
        key = _ALIASES.get(setting.strip().lower())
        if key is None:
            raise ConfigError(f"unknown MMMU-Pro setting {setting!r} (known: standard-10, standard-4, vision)")
        if mode not in _MODES:
            raise ConfigError(f"unknown prompt mode {mode!r} for {setting} (known: direct, cot)")
        runs.setdefault(key, {})[mode] = float(accuracy)
    settings: dict[str, dict] = {}
    for key, by_mode in runs.items():
        # Ties go to direct, the cheaper protocol; the choice is recorded either way.
        mode = max(_MODES, key=lambda m: (by_mode.get(m, float("-inf")), m == "direct"))
        settings[key] = {"accuracy": by_mode[mode], "mode": mode, "runs": dict(by_mode)}
    missing = [s for s in HEADLINE_SETTINGS if s not in settings]
    headline = None if missing else sum(settings[s]["accuracy"] for s in HEADLINE_SETTINGS) / len(HEADLINE_SETTINGS)
    return {
        "headline": headline,
        "settings": settings,
        "missing": missing,
        "rule": "mean of standard-10 and vision, each the better of direct and cot",
    }
