"""Counting calls: the one harness of the "computed once" tests of every wing (tests/test_study_contract.py).

    from counting import calls_of

    with calls_of(landscape.assign_zones, desire.desire_shares) as calls:
        build(params, inputs)
    assert calls["compendium.workbank.landscape.assign_zones"] == 1

:func:`calls_of` wraps each function in every ``compendium`` module that holds it -- its own module, every
``from x import f`` copy, and every module-level tuple that lists it (a wing's ``PHRASES``) -- so a call
through any of those names is counted, and the original is called. ``only_from``: count only calls made from
modules whose name starts with one of these prefixes (e.g. ``("compendium.",)``: the pipeline's own calls,
not a test's). The tests import it as ``counting`` (``tests/`` is on ``sys.path`` under pytest's rootdir
conftest, as for ``scratch``).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from unittest import mock

__all__ = ["calls_of", "key_of"]


def key_of(f: Callable) -> str:
    """``module.qualname`` of a function: the key :func:`calls_of` counts it under."""
    return f"{f.__module__}.{f.__qualname__}"


def _caller_module() -> str:
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__", "") in (__name__, "unittest.mock"):
        f = f.f_back
    return f.f_globals.get("__name__", "") if f is not None else ""


@contextlib.contextmanager
def calls_of(*functions: Callable, only_from: tuple[str, ...] | None = None) -> Iterator[Counter]:
    """Within the block, count the calls of each of ``functions`` (keys: :func:`key_of`); see the module docstring."""
    calls: Counter = Counter({key_of(f): 0 for f in functions})
    wrapped = {}
    for f in functions:
        key = key_of(f)

        @functools.wraps(f)
        def counting(*a, _f=f, _key=key, **k):
            if only_from is None or _caller_module().startswith(only_from):
                calls[_key] += 1
            return _f(*a, **k)

        wrapped[id(f)] = counting
    with contextlib.ExitStack() as stack:
        for name, mod in list(sys.modules.items()):
            if not name.startswith("compendium") or mod is None:
                continue
            for attr, v in list(vars(mod).items()):
                if id(v) in wrapped and any(v is f for f in functions):
                    stack.enter_context(mock.patch.object(mod, attr, wrapped[id(v)]))
                elif isinstance(v, tuple) and any(callable(x) and id(x) in wrapped for x in v):
                    stack.enter_context(mock.patch.object(mod, attr, tuple(wrapped.get(id(x), x) for x in v)))
        yield calls
