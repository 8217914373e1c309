"""One table from model spec to backend: ``openai:``, ``hf:``, ``vllm:``, ``random``, ``frequent``,
``text-only:SPEC``.

A backend's module is imported only when its spec is chosen, so torch, transformers and vllm
stay unimported for an API run. When an extra is missing, the error names the exact install
command; an unknown spec lists the known ones and suggests the closest.

Each backend gets its own settings record (``backends/settings.py``), never the run's whole
configuration nor its items: ``BackendEntry.settings`` names which record a row's class takes.

>>> backend = make_backend("random", BackendSettings(baseline=BaselineSettings(seed=5)))
>>> backend.spec, backend.seed
('random', 5)
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Sequence

from mmmu_eval.backends.base import Backend, Contacting
from mmmu_eval.backends.custom import as_backend
from mmmu_eval.backends.settings import BackendSettings, BaselineSettings  # noqa: F401  (the docstring example uses it)
from mmmu_eval.core.errors import ConfigError, argument

__all__ = ["BACKENDS", "ENTRY_POINT_GROUP", "BackendEntry", "make_backend", "make_backend_before_data", "parse_spec",
           "plugin_entries"]


@dataclass(frozen=True)
class BackendEntry:
    """One row of the registry."""

    prefix: str
    """``openai:`` (takes a name after the colon) or ``random`` (a whole spec, no name)."""
    module: str
    """The module that holds the class, imported only when the spec is chosen."""
    cls: str
    """A class with ``from_settings(name, settings) -> Backend`` (a plug-in's may be a factory instead)."""
    extra: str | None
    """The pip extra that brings its dependencies; None when the core install has them."""
    usage: str
    """How the spec is written, for help and error messages."""
    settings: str | None = "custom"
    """The ``BackendSettings`` field its class is given (``openai``, ``hf``, ``vllm``, ``baseline``,
    ``custom``: a plug-in's); None: all of them (``text-only:``, which builds the backend it wraps)."""
    before_data: bool = False
    """Built before the dataset is read, to reach its server meanwhile (``contact()``): needs no
    items and loads nothing. Never a local model, which loads only after the protocol check."""
    package: str | None = None
    """A plug-in's distribution (the package that registers it), named when it cannot be loaded."""

    @property
    def takes_name(self) -> bool:
        return self.prefix.endswith(":")


BACKENDS: tuple[BackendEntry, ...] = (
    BackendEntry("openai:", "mmmu_eval.backends.openai_api", "OpenAIBackend", None, "openai:MODEL", "openai",
                 before_data=True),
    BackendEntry("hf:", "mmmu_eval.backends.hf_transformers", "HFBackend", "hf", "hf:PATH_OR_ID", "hf"),
    BackendEntry("vllm:", "mmmu_eval.backends.vllm_offline", "VLLMBackend", "vllm", "vllm:PATH_OR_ID", "vllm"),
    BackendEntry("random", "mmmu_eval.backends.baselines", "RandomBackend", None, "random", "baseline"),
    BackendEntry("frequent", "mmmu_eval.backends.baselines", "FrequentBackend", None, "frequent", "baseline"),
    BackendEntry("text-only:", "mmmu_eval.backends.baselines", "TextOnlyBackend", None, "text-only:SPEC", None),
)


#: The entry-point group third-party backends register under (``pyproject.toml``:
#: ``[project.entry-points."mmmu_eval.backends"] mine = "mypkg.backend:MyBackend"``). The target
#: is a class with ``from_settings(name, settings)``, as the built-in ones, given a
#: ``CustomSettings`` (``backends/settings.py``: concurrency, attempts, timeout, image size, batch
#: size, dtype, device, seed, base URLs, the key's variable), or a factory ``factory(name)``
#: returning a model object (``custom.as_backend`` takes it); ``--model mine:NAME`` then builds
#: it. A plug-in never shadows a built-in prefix. An entry point that names a module without an
#: attribute, or whose module cannot be imported, is refused when chosen with a ConfigError
#: naming the plug-in's package (docs/guides/custom-model.md has the rules and an example package).
ENTRY_POINT_GROUP = "mmmu_eval.backends"


def plugin_entries() -> tuple[BackendEntry, ...]:
    """The backends installed packages register under ``ENTRY_POINT_GROUP``, as registry rows."""
    from importlib.metadata import entry_points

    builtin = {e.prefix.rstrip(":") for e in BACKENDS}
    rows = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in builtin:
            continue
        module, _, attr = point.value.partition(":")  # no attribute: refused when chosen (make_backend)
        dist = getattr(point, "dist", None)
        rows.append(BackendEntry(f"{point.name}:", module.strip(), attr.strip(), None, f"{point.name}:NAME",
                                 package=getattr(dist, "name", None) or module.strip()))
    return tuple(rows)


def parse_spec(spec: str, table: Sequence[BackendEntry] | None = None) -> tuple[BackendEntry, str]:
    """The registry entry for a spec, and the name after its prefix (``""`` for baselines).

    ``table`` defaults to the built-in backends and then the installed plug-ins.

    Raises:
        ConfigError: the spec matches no entry; the message lists the known specs and the
            closest one.
    """
    table = (*BACKENDS, *plugin_entries()) if table is None else table
    spec = spec.strip()
    for entry in table:
        if entry.takes_name and spec.startswith(entry.prefix):
            return entry, spec[len(entry.prefix):]
        if not entry.takes_name and spec == entry.prefix:
            return entry, ""
    raise ConfigError(_unknown(spec, table))


def make_backend(spec: str | Backend, settings: BackendSettings | None = None) -> Backend:
    """Build the backend a model spec names.

    Args:
        spec: ``openai:gpt-4o``, ``hf:/models/x``, ``random``, a plug-in's ``NAME:ARG`` ...; a
            model object (a Backend, an object with ``generate``, a chat function) is made a
            Backend by ``custom.as_backend``.
        settings: each backend kind's settings (``run/backend_settings.backend_settings`` builds
            them from a run's configuration); the backend is given only its own. None: defaults.

    Returns:
        The backend, not yet preflighted.

    Raises:
        ConfigError: an unknown spec, a missing extra (naming the pip command), or the
            backend's own configuration problem.

    >>> make_backend("text-only:random").spec
    'text-only:random'
    """
    settings = settings or BackendSettings()
    if not isinstance(spec, str):
        return as_backend(spec, settings.custom)
    entry, name = parse_spec(spec)
    if not entry.cls:
        raise ConfigError(f"--model {spec}: the entry point {entry.prefix.rstrip(':')} = {entry.module!r} (package "
                          f"{entry.package}) names a module; it must name module:attribute, a class or a factory")
    target = getattr(_import(entry, spec), entry.cls, None)
    if target is None:
        raise ConfigError(f"{argument('model', spec, typed=True)}: {entry.module} has no {entry.cls} (the entry point {entry.prefix.rstrip(':')} names it)")
    own = settings if entry.settings is None else getattr(settings, entry.settings)
    if hasattr(target, "from_settings"):
        built = target.from_settings(name, own)
        # a plug-in's class may give an object with only generate, as a factory may: completed alike
        return as_backend(built, settings.custom) if entry.package is not None else built
    if hasattr(target, "from_config"):
        raise ConfigError(
            f"{argument('model', spec, typed=True)}: {entry.module}.{entry.cls} has from_config(name, config, items); a backend class "
            "is now built with from_settings(name, settings), given a CustomSettings (see the custom model guide)"
        )
    # a plug-in's factory: its model object, made a Backend like any other
    return as_backend(target(name), settings.custom)


def make_backend_before_data(spec: str | Backend, settings: BackendSettings) -> Contacting | None:
    """The backend for ``spec`` if it is one to build before the data is read, else None.

    Only an API client is: ``evaluate`` calls its ``contact()`` so the first request goes out
    while the dataset loads. A Backend object given ready is left to its owner (the suite
    shares one between runs and has contacted it already).

    Raises:
        ConfigError: as ``make_backend`` (an unknown spec, no API key).
    """
    if not isinstance(spec, str):
        return None
    entry, name = parse_spec(spec)
    if not entry.before_data:
        return None
    cls = getattr(_import(entry, spec), entry.cls)
    backend = cls.from_settings(name, settings if entry.settings is None else getattr(settings, entry.settings))
    assert isinstance(backend, Contacting), f"{entry.cls} is built before the data but has no contact()"
    return backend


def _import(entry: BackendEntry, spec: str) -> object:
    try:
        return importlib.import_module(entry.module)
    except ImportError as exc:
        missing = exc.name or "a dependency"
        if entry.package is not None:  # a plug-in: its own package is what to fix, not ours
            raise ConfigError(
                f"--model {spec}: the plug-in {entry.module} (package {entry.package}) cannot be imported: "
                f"{exc}; install what it needs, or reinstall {entry.package}"
            ) from exc
        if missing == "mmmu_eval" or missing.startswith("mmmu_eval."):
            raise
        if entry.extra is None:
            raise ConfigError(f"{argument('model', spec, typed=True)}: {missing} is not installed; reinstall mmmu-eval") from exc
        raise ConfigError(
            f"{argument('model', spec, typed=True)} needs the {entry.extra} extra ({missing} is not installed); "
            f"run: pip install 'mmmu-eval[{entry.extra}]'"
        ) from exc


def _unknown(spec: str, table: Sequence[BackendEntry]) -> str:
    known = ", ".join(e.usage for e in table)
    if not spec:
        return f"{argument('model')} is empty; known specs: {known}"
    head = spec.split(":", 1)[0]
    names = [e.prefix.rstrip(":") for e in table]
    close = difflib.get_close_matches(head, names, n=1, cutoff=0.5)
    if close:
        entry = table[names.index(close[0])]
        rest = spec.split(":", 1)[1] if ":" in spec else ""
        guess = entry.prefix + rest if entry.takes_name else entry.prefix
        if entry.takes_name and not rest:
            guess = entry.usage
        hint = f"did you mean {guess}?"
    elif ":" not in spec:
        hint = f"did you mean openai:{spec} (a model behind an OpenAI-compatible server) or hf:{spec}?"
    else:
        hint = "no known prefix is close"
    return f"unknown model spec {spec!r}; {hint} Known specs: {known}"
