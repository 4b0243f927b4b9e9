"""slot_init: the fast __init__ of the check's frozen values behaves as dataclass's."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from service.check.bind import Binding
from service.check.match import Outcome
from service.frozen import slot_init
from service.models import CheckStatus


@slot_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Point:
    x: int
    y: int = 0
    label: str = "origin"


def test_init_takes_the_fields_in_order_with_their_defaults() -> None:
    for cls in (_Point, Binding, Outcome):
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert [p.name for p in params] == [f.name for f in dataclasses.fields(cls)]
        for p, f in zip(params, dataclasses.fields(cls), strict=True):
            assert p.default == (f.default if f.default is not dataclasses.MISSING else p.empty)


def test_values_stay_frozen_equal_hashable_and_picklable() -> None:
    p = _Point(1, label="a")
    assert p == _Point(x=1, y=0, label="a") and hash(p) == hash(_Point(1, 0, "a"))
    assert dataclasses.replace(p, y=2) == _Point(1, 2, "a")
    assert pickle.loads(pickle.dumps(p)) == p
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Point()  # type: ignore[call-arg]
    assert Outcome(CheckStatus.SUPPORTED).unit is None


def test_default_factories_are_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class WithList:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError):
        slot_init(WithList)
