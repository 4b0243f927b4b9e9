"""numbers: digits with a plural "s" that name a model ("RTX 4090s") or a decade ("the
1990s"), not seconds; and the seconds that stay seconds ("12s", "TTFT 1200s", "2000s").
Then the check: a model's plural or a decade backs its name, not a figure of seconds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Kind, extract_numbers
from tests.check_helpers import S, U, status
from tests.numbers_helpers import one

RTX_SOURCE = "Measured on 8 RTX 4090s, it ran 2.1x faster."
DECADE_SOURCE = "Back in the 1990s, models were small."


@pytest.mark.parametrize(
    ("text", "shown", "key"),
    [
        # A model's plural: three or four digits after a word of two to five capitals,
        # keyed as its singular ("RTX 4090", as the check reads an explainer's).
        ("Measured on RTX 4090s, it ran", "RTX 4090s", "rtx\x004090"),
        ("a box of GTX 1080s", "GTX 1080s", "gtx\x001080"),
        ("NVIDIA RTX 3090s", "RTX 3090s", "rtx\x003090"),
        ("an AMD MI 300s", "MI 300s", "mi\x00300"),
        ("RTX 2080s", "RTX 2080s", "rtx\x002080"),  # a model first, though 2080 ends in 0
        ("on RTX\u00a04090s", "RTX\u00a04090s", "rtx\x004090"),  # a no-break space
        # A decade: 1800 to 2090 in tens, keyed with its "s" (no year).
        ("Back in the 1990s, models were small.", "1990s", "1990s"),
        ("In the 2010s GPUs won.", "2010s", "2010s"),
        ("by 2020s standards", "2020s", "2020s"),
        ("1970s-era hardware", "1970s", "1970s"),
        ("in the mid-1990s", "1990s", "1990s"),
        ("in the mid\u20111980s", "1980s", "1980s"),  # a non-breaking hyphen
        # A round century only after "the", "early", "late", "mid".
        ("the 2000s", "2000s", "2000s"),
        ("The 1900s were slow.", "1900s", "1900s"),
        ("in the early 2000s", "2000s", "2000s"),
        ("the late 1800s", "1800s", "1800s"),
        ("mid-1900s designs", "1900s", "1900s"),
    ],
)
def test_a_plural_name(text: str, shown: str, key: str) -> None:
    n = one(text)
    assert (n.kind, n.text, n.key, n.unit, n.value) == (Kind.IDENTIFIER, shown, key, "", None)
    assert text[n.start : n.end] == shown


def test_already_identifiers_keep_their_key() -> None:
    # A name with its letters on its digits was an identifier before: the same key.
    assert [(n.text, n.key) for n in extract_numbers("8 A100s and RTX-4090s")] == [
        ("8", ""),
        ("A100s", "a100"),
        ("RTX-4090s", "rtx\x004090"),
    ]


def test_a_plural_model_keeps_the_count_before_it() -> None:
    found = extract_numbers("Measured on 8 RTX 4090s, it ran 2.1x faster.")
    assert [(n.text, n.kind, n.unit) for n in found] == [
        ("8", Kind.QUANTITY, ""),
        ("RTX 4090s", Kind.IDENTIFIER, ""),
        ("2.1x", Kind.QUANTITY, "x"),
    ]


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        ("It took 12s to load", "12s", "12"),
        # A measure a duration follows, not a model's line.
        ("TTFT 1200s at peak", "1200s", "1200"),
        ("SLO 1500s", "1500s", "1500"),
        ("ETA 3600s", "3600s", "3600"),
        ("GPU 1200s, CPU 300s", "1200s", "1200"),
        # No word in capitals: nothing names a model.
        ("on 4090s", "4090s", "4090"),
        ("NVIDIA 4090s", "4090s", "4090"),  # six capitals: a maker, no model's line
        ("a B 4090s", "4090s", "4090"),  # one capital
        ("RTX. 4090s", "4090s", "4090"),  # not one space apart
        # A round century alone, or after another word: as many seconds.
        ("2000s later", "2000s", "2000"),
        ("after 1800s the job ends", "1800s", "1800"),
        ("a timeout of 1900s", "1900s", "1900"),
        # Not a decade: out of 1800-2090, or not in tens.
        ("3600s", "3600s", "3600"),
        ("1200s", "1200s", "1200"),
        ("2100s", "2100s", "2100"),
        ("1995s", "1995s", "1995"),
        # Two digits with no decade's words around them ("the 90s timeout": a word after
        # "the 90s"; tests/test_numbers_plural_lists.py has the decades).
        ("in 30s", "30s", "30"),
        ("the 90s timeout", "90s", "90"),
        # A round power of ten before "of" and no plural: a run's first minutes.
        ("the first 100s of training", "100s", "100"),
        ("1.5s", "1.5s", "1.5"),
    ],
)
def test_seconds_stay_seconds(text: str, shown: str, value: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.unit, n.value) == (Kind.QUANTITY, "s", Decimal(value))


# --- the check ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # The source's "RTX 4090s" is no 4090 seconds: an explainer's figure is not in it.
        ("It took 4090 seconds.", RTX_SOURCE, "4090 seconds", U),
        ("They ran it on 4090 GPUs.", RTX_SOURCE, "4090", U),
        # Its name backs the name, with or without the "s", and the other way round.
        ("They ran it on RTX 4090 GPUs.", RTX_SOURCE, "RTX 4090", S),
        ("They ran it on RTX 4090s.", RTX_SOURCE, "RTX 4090s", S),
        ("They ran it on RTX 4090s.", "Measured on 8 RTX 4090 GPUs.", "RTX 4090s", S),
        ("They ran it on RTX 3090s.", RTX_SOURCE, "RTX 3090s", U),
        # The count before the name still counts GPUs.
        ("The run used 8 GPUs.", RTX_SOURCE, "8", S),
        # A decade backs a decade, not a duration nor another decade.
        ("Models were small in the 1990s.", DECADE_SOURCE, "1990s", S),
        ("It took 1990 seconds.", DECADE_SOURCE, "1990 seconds", U),
        ("Models were small in the 2000s.", DECADE_SOURCE, "2000s", U),
        # Seconds on digits are still seconds.
        ("Loading took 12 seconds.", "It took 12s to load.", "12 seconds", S),
        ("TTFT was 1200 seconds.", "TTFT 1200s at peak.", "1200 seconds", S),
    ],
)
def test_check_reads_plurals_as_names(
    explainer: str, source: str, written: str, expected: object
) -> None:
    assert status(explainer, source, written) == expected
