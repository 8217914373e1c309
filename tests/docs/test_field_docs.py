"""Every field of every public record says what it is, on the API reference.

The records the package hands a user (``mmmu_eval.__all__``) and the settings records a plug-in
reads (``mmmu_eval.backends.settings``) document each field with the string under it (an
attribute docstring), which mkdocstrings renders on docs/reference/api.md and an editor shows on
hover. RunConfig's also give each flag its help (``config.help_of``). A field added without one
fails here, naming it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import textwrap
from pathlib import Path

import mmmu_eval
from mmmu_eval.backends import settings

ROOT = Path(__file__).resolve().parents[2]
API_PAGE = ROOT / "docs" / "reference" / "api.md"

#: The plug-in settings records, documented on the API page beside the top-level names.
SETTINGS = tuple(f"mmmu_eval.backends.settings.{name}" for name in settings.__all__)


def _records() -> dict[str, type]:
    """Each public dataclass, by the name a user writes."""
    found = {f"mmmu_eval.{name}": getattr(mmmu_eval, name) for name in mmmu_eval.__all__}
    found.update({path: getattr(settings, path.rsplit(".", 1)[1]) for path in SETTINGS})
    return {path: obj for path, obj in found.items() if inspect.isclass(obj) and dataclasses.is_dataclass(obj)}


def documented_fields(cls: type) -> set[str]:
    """The fields of ``cls`` (its own and its bases') with a string right under them."""
    out: set[str] = set()
    for klass in cls.__mro__:
        if klass is object or not dataclasses.is_dataclass(klass):
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body  # type: ignore[attr-defined]
        for node, after in zip(body, body[1:]):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)
                    and after.value.value.strip()):
                out.add(node.target.id)
    return out


def test_the_check_sees_the_records_it_should():
    records = _records()
    for name in ("mmmu_eval.RunConfig", "mmmu_eval.RunResult", "mmmu_eval.Comparison", "mmmu_eval.SuiteResult",
                 "mmmu_eval.Diagnosis", "mmmu_eval.Audit", "mmmu_eval.backends.settings.CustomSettings",
                 "mmmu_eval.backends.settings.OpenAISettings", "mmmu_eval.backends.settings.HFSettings"):
        assert name in records
    assert len(records) > 40


def test_every_field_of_every_public_record_has_its_text():
    missing = [f"{path}.{f.name}" for path, cls in sorted(_records().items())
               for f in dataclasses.fields(cls) if f.name not in documented_fields(cls)]
    assert not missing, f"{len(missing)} public fields say nothing (add the string under each): {missing}"


def test_every_public_name_and_the_plugin_settings_are_on_the_api_page():
    page = API_PAGE.read_text()
    shown = set(re.findall(r"^::: ([\w.]+)", page, flags=re.M))
    wanted = {f"mmmu_eval.{name}" for name in mmmu_eval.__all__ if name != "__version__"} | set(SETTINGS)
    assert not wanted - shown, f"not on docs/reference/api.md: {sorted(wanted - shown)}"


def test_a_field_without_its_text_is_found():
    @dataclasses.dataclass(frozen=True)
    class Example:
        said: int = 0
        """What it is."""
        silent: int = 0

    assert documented_fields(Example) == {"said"}
