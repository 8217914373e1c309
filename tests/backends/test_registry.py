"""The backend registry: every spec resolves, unknown specs get suggestions, missing extras name pip."""

import sys

import pytest

import dataclasses
import inspect

from mmmu_eval.backends.baselines import FrequentBackend, RandomBackend, TextOnlyBackend
from mmmu_eval.backends.registry import BACKENDS, BackendEntry, make_backend, parse_spec
from mmmu_eval.backends.settings import BackendSettings, BaselineSettings, FixedAnswers
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.run.backend_settings import backend_settings

FIXED = FixedAnswers({"dev_Art_1": "B"}, ("B",), None, 1)


@pytest.mark.parametrize("entry", BACKENDS, ids=lambda e: e.prefix)
def test_every_registered_spec_resolves_to_a_class_given_only_its_settings(entry):
    """Imports the module (torch and vllm stay unimported: their modules import them lazily).
    Each class is built from a name and one settings record: never the run, never the items."""
    spec = entry.prefix + ("some-name" if entry.takes_name else "")
    found, name = parse_spec(spec)
    assert found is entry and name == ("some-name" if entry.takes_name else "")
    module = __import__(entry.module, fromlist=[entry.cls])
    build = getattr(getattr(module, entry.cls), "from_settings")
    assert list(inspect.signature(build).parameters) == ["name", "settings"]
    assert not hasattr(getattr(module, entry.cls), "from_config")
    kinds = {f.name for f in dataclasses.fields(BackendSettings)}
    assert entry.settings is None or entry.settings in kinds


@pytest.mark.parametrize(
    "spec, cls",
    [("random", RandomBackend), ("frequent", FrequentBackend), ("text-only:random", TextOnlyBackend)],
)
def test_baseline_specs_build_their_backend(spec, cls):
    backend = make_backend(spec, BackendSettings(baseline=BaselineSettings(fixed_answers=FIXED)))
    assert isinstance(backend, cls) and backend.spec == spec


def test_each_backend_is_handed_its_own_record(monkeypatch):
    """The registry gives a class the record its row names, the whole bundle only to text-only."""
    from mmmu_eval.backends import baselines

    given = []
    monkeypatch.setattr(baselines.RandomBackend, "from_settings", classmethod(lambda cls, name, s: given.append(s) or cls()))
    settings = BackendSettings(baseline=BaselineSettings(seed=9))
    make_backend("random", settings)
    make_backend("text-only:random", settings)
    assert given == [settings.baseline, settings.baseline]
    assert make_backend("text-only:random", settings).inner.spec == "random"


def test_the_adapter_fills_every_setting_from_the_run_config_field_of_its_name():
    """One adapter (run/backend_settings.py): a settings field it forgot would stay None here."""
    values = {"base_urls": ("http://127.0.0.1:1/v1",), "api_key_env": "K", "concurrency": 3, "max_attempts": 4,
              "request_timeout": 5.5, "probe_timeout": 6.5, "max_response_bytes": 9, "max_image_pixels": 7, "batch_size": 8, "dtype": "float16",
              "device": "cpu", "trust_remote_code": True, "tensor_parallel_size": 2, "pipeline_parallel_size": 3,
              "data_parallel_size": 4, "seed": 11}
    settings = backend_settings(RunConfig(model="random", **values), fixed_answers=FIXED)
    for kind in dataclasses.fields(settings):
        record = getattr(settings, kind.name)
        for field in dataclasses.fields(record):
            expected = FIXED if field.name == "fixed_answers" else values[field.name]
            assert getattr(record, field.name) == expected, f"{kind.name}.{field.name}"


def test_a_backend_object_passes_through_unchanged():
    backend = RandomBackend(3)
    assert make_backend(backend, BackendSettings()) is backend


def test_a_baseline_run_imports_neither_torch_nor_transformers_nor_vllm():
    """In a fresh interpreter: the registry imports a backend's engine only when it is chosen."""
    import subprocess

    code = (
        "import sys\n"
        "from mmmu_eval.run.pipeline import evaluate\n"
        "from mmmu_eval.backends.registry import BACKENDS, make_backend, parse_spec\n"
        "for e in BACKENDS: parse_spec(e.prefix + ('x' if e.takes_name else ''))\n"
        "make_backend('text-only:random')\n"
        "print(sorted(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "spec, suggestion",
    [
        ("opnai:gpt-4o", "did you mean openai:gpt-4o?"),
        ("randm", "did you mean random?"),
        ("frequnt", "did you mean frequent?"),
        ("text_only:random", "did you mean text-only:random?"),
        ("gpt-4o", "did you mean openai:gpt-4o"),
    ],
)
def test_an_unknown_spec_suggests_the_closest_and_lists_the_known(spec, suggestion):
    with pytest.raises(ConfigError) as info:
        parse_spec(spec)
    message = str(info.value)
    assert message.startswith(f"unknown model spec {spec!r}") and suggestion in message
    assert "Known specs: openai:MODEL, hf:PATH_OR_ID, vllm:PATH_OR_ID, random, frequent, text-only:SPEC" in message


def test_a_missing_extra_names_the_exact_pip_command(tmp_path, monkeypatch):
    """A backend module whose dependency is not installed: the error says which extra to install."""
    (tmp_path / "needs_missing_dep.py").write_text("import not_installed_engine_xyz\nclass Engine: pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    table = (BackendEntry("fake:", "needs_missing_dep", "Engine", "hf", "fake:NAME"),)
    entry, _ = parse_spec("fake:tiny", table)
    from mmmu_eval.backends import registry

    with pytest.raises(ConfigError) as info:
        registry._import(entry, "fake:tiny")
    assert str(info.value) == (
        "--model fake:tiny needs the hf extra (not_installed_engine_xyz is not installed); "
        "run: pip install 'mmmu-eval[hf]'"
    )


def test_vllm_without_vllm_installed_names_the_vllm_extra():
    try:
        import vllm  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("vllm is installed here")
    with pytest.raises(ConfigError, match=r"pip install 'mmmu-eval\[vllm\]'"):
        make_backend("vllm:/models/x", backend_settings(RunConfig(model="vllm:/models/x")))
