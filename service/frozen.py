"""Frozen value classes built fast: the check makes hundreds of small immutable values
(bindings, names, outcomes) per explainer."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TypeVar

T = TypeVar("T")


def slot_init(cls: type[T]) -> type[T]:
    """Give a ``@dataclass(frozen=True, slots=True)`` class an ``__init__`` with the same
    parameters that sets each field through its slot's own setter.

    The ``__init__`` dataclass writes for a frozen class sets each field by
    ``object.__setattr__`` (looked up per field): twice the cost. Generated from the
    class's fields, as dataclass generates its own, so a field added to the class is
    carried without touching this. Fields with a ``default_factory`` are not supported."""
    params, body = [], []
    namespace: dict[str, object] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: default_factory is not supported")
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)  # code built from the class's own field names, as dataclass does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[misc, assignment]
    return cls
