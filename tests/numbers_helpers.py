"""What the tests of service.numbers (tests/test_numbers_*.py) share."""

from __future__ import annotations

from service.numbers import Number, extract_numbers


def one(text: str) -> Number:
    found = extract_numbers(text)
    assert len(found) == 1, found
    return found[0]
