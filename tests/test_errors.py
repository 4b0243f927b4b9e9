"""The exception tree: documented, mapped to HTTP, and readable when it wraps pydantic."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from pydantic import BaseModel, ValidationError

from service import errors
from service.errors import PlainfeedError, validation_problems

CLASSES = [
    c
    for _, c in inspect.getmembers(errors, inspect.isclass)
    if issubclass(c, PlainfeedError) and c.__module__ == errors.__name__
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_error_has_its_own_docstring_status_and_slug(cls: type[PlainfeedError]) -> None:
    # Each class says what it is for in its own docstring (not one inherited).
    assert (cls.__dict__.get("__doc__") or "").strip()
    assert 400 <= cls.status <= 599
    # The slug ends the problem's ``type`` URI.
    assert cls.slug and cls.slug == cls.slug.lower() and " " not in cls.slug


def test_the_detail_defaults_to_the_title_and_extra_is_kept() -> None:
    err = errors.NotFound(item=7)
    assert str(err) == err.detail == errors.NotFound.title
    assert err.extra == {"item": 7}


class _Shape(BaseModel):
    title: str
    sections: list[str]
    words: int = 0


def _error(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as raised:
        _Shape.model_validate(data)
    return raised.value


def test_validation_problems_is_one_line_of_location_and_message() -> None:
    exc = _error({"title": 5, "sections": ["a", 6]})
    assert validation_problems(exc, "(file)") == (
        "title: Input should be a valid string; sections.1: Input should be a valid string"
    )


def test_validation_problems_names_the_whole_value_and_counts_what_it_leaves_out() -> None:
    assert validation_problems(_error([1]), "answer") == (
        "answer: expected a mapping of names to values, not a list"
    )
    exc = _error({"title": 1, "sections": 2, "words": "many"})
    assert validation_problems(exc, "answer", limit=1) == (
        "title: Input should be a valid string; and 2 more"
    )


def test_cause_chain_is_one_line_nearest_cause_first() -> None:
    def raised(make: Callable[[], None]) -> BaseException:
        try:
            make()
        except Exception as exc:
            return exc
        raise AssertionError("nothing raised")

    def wrapped() -> None:
        try:
            try:
                raise OSError("connection\nrefused")
            except OSError as exc:
                raise ValueError("bad answer") from exc
        except ValueError as exc:
            raise errors.FetchError("cannot fetch") from exc

    def implicit() -> None:
        try:
            raise KeyError("k")
        except KeyError:
            raise errors.LLMError("failed") from None

    assert errors.cause_chain(raised(wrapped)) == (
        "ValueError: bad answer <- OSError: connection refused"
    )
    assert errors.cause_chain(raised(implicit)) == ""  # "from None": no cause to show
    assert errors.cause_chain(errors.StoreError("never raised")) == ""
