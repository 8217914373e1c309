"""Old names kept for one release: a keyword renamed on a function, a name moved off the root.

Every seed is named for what it seeds (``fallback_seed``, ``bootstrap_seed``,
``generation_seed``, ...) and the root names the entry points only, so code written against the
earlier names would break on upgrade. For one release it keeps working and says what to write
instead, with a ``DeprecationWarning`` (shown by pytest, and in ``__main__`` and notebooks; ``python
-W error::DeprecationWarning`` turns each into an error, to find them all).

>>> import warnings
>>> @renamed_keywords(seed="bootstrap_seed")
... def interval(*, bootstrap_seed: int = 0) -> int:
...     return bootstrap_seed
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     interval(seed=3), str(caught[0].message)
(3, 'interval(seed=) is deprecated and goes in the next release: pass bootstrap_seed= instead')
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["moved", "renamed_keywords", "take_renamed"]

F = TypeVar("F", bound=Callable[..., Any])


def take_renamed(where: str, renamed: Mapping[str, str], kwargs: dict[str, Any], *, stacklevel: int) -> None:
    """Move each old keyword in ``kwargs`` to its new name, warning that ``where(old=)`` goes.

    Raises:
        TypeError: the old and the new name both given (as Python says of a keyword given twice).
    """
    for old, new in renamed.items():
        if old not in kwargs:
            continue
        if new in kwargs:
            raise TypeError(f"{where}() got {old}= and {new}=, which name one argument; pass {new}= only")
        warnings.warn(f"{where}({old}=) is deprecated and goes in the next release: pass {new}= instead",
                      DeprecationWarning, stacklevel=stacklevel + 1)
        kwargs[new] = kwargs.pop(old)


def renamed_keywords(**renamed: str) -> Callable[[F], F]:
    """Let a function still take its keywords' old names (``old="new"``) for one release.

    The function's own signature (``inspect.signature``, the type hints, ``help``) shows the new
    names only; an old one is moved to its new name with a DeprecationWarning naming both.
    """

    def decorate(function: F) -> F:
        where = function.__name__
        if inspect.iscoroutinefunction(function):
            @functools.wraps(function)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                take_renamed(where, renamed, kwargs, stacklevel=2)
                return await function(*args, **kwargs)

            run_async.__renamed_keywords__ = dict(renamed)  # type: ignore[attr-defined]
            return run_async  # type: ignore[return-value]

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            take_renamed(where, renamed, kwargs, stacklevel=2)
            return function(*args, **kwargs)

        run.__renamed_keywords__ = dict(renamed)  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def moved(package: str, old: str, new: str, value: object, *, stacklevel: int = 3) -> object:
    """``value``, the object a package's old name stands for, with a DeprecationWarning saying
    what to write instead (``new``: ``mmmu_eval.score`` or ``from mmmu_eval.auditing import Vote``)."""
    warnings.warn(f"{package}.{old} is deprecated and goes in the next release: use {new}",
                  DeprecationWarning, stacklevel=stacklevel)
    return value
