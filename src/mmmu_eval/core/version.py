"""The package's version, in one place (layer L0: it imports nothing of ours).

Every module that records or sends the version (the manifest's ``package_version``, the suite's
reuse check, harden's trial cache key, the HTTP User-Agent) reads it here, so none has to import
the package root, which would load every public name, or fall back to a default of its own.
``pyproject.toml`` carries the same string; ``tests/test_public_api.py`` holds them equal.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
