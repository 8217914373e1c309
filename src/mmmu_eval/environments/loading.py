"""Which verifiers API an environment is built for, and the import that says what to install.

verifiers 0.4 and later (``verifiers.v1``) find an environment by its module's exports (a
taskset, a harness, an env), and ``load_environment`` there returns a ``verifiers.v1.Env``.
verifiers up to 0.3 (its classic API) calls the module's ``load_environment(**args)`` and
expects a ``SingleTurnEnv``. Both are built from the same examples and rewards; only this
module decides which one a call gets.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from mmmu_eval.core.errors import ConfigError

INSTALL = "pip install 'mmmu-eval[verifiers]'"
APIS = ("auto", "v1", "legacy")


def load(env_id: str, api: str = "auto", **args: Any) -> Any:
    """The environment ``env_id`` (``mmmu-pro`` or ``mmmu``) for the installed verifiers.

    Args:
        env_id: ``mmmu-pro`` or ``mmmu``.
        api: ``auto`` (the classic ``SingleTurnEnv`` when the installed verifiers has it,
            else the v1 env), ``v1`` or ``legacy``.
        **args: the taskset arguments (mode, setting, subset, split, data, seed, limit ...).
    """
    if api not in APIS:
        raise ConfigError(f"api {api!r} is not one of {', '.join(APIS)}")
    verifiers = _import("verifiers")
    if api == "legacy" or (api == "auto" and _has_legacy(verifiers)):
        from mmmu_eval.environments import verifiers_legacy

        return verifiers_legacy.load_environment(env_id, **args)
    return v1().load_environment(env_id, **args)


def v1() -> ModuleType:
    """The v1 adapter module (imports ``verifiers.v1``), or an ImportError saying what to install."""
    _import("verifiers.v1")
    return importlib.import_module("mmmu_eval.environments.verifiers_v1")


def v1_export(module: str, name: str, exports: tuple[str, ...]) -> Any:
    """A module ``__getattr__`` body: the v1 classes are built only when verifiers asks for them."""
    if name not in exports:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return getattr(v1(), name)


def _has_legacy(verifiers: ModuleType) -> bool:
    try:
        return getattr(verifiers, "SingleTurnEnv", None) is not None
    except ImportError:  # a classic surface that cannot load is no classic surface
        return False


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise ModuleNotFoundError(
                f"the verifiers environments need {name} ({INSTALL}; verifiers 0.4 needs Python 3.11+)",
                name=exc.name,
            ) from None
        raise
