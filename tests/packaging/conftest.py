"""The package tests (the built wheel in a fresh venv, the documentation site) run only where asked.

They install from PyPI and build the whole site, a minute or two of their own: ``make test`` runs
them in a side session (``make test-package``) with ``MMMU_EVAL_PACKAGE_TESTS=1``, beside the
main one, in a venv holding only the docs extra, build, twine and pytest. Every other session
leaves this directory out (tests/conftest.py), so no one pays for them twice.
"""
