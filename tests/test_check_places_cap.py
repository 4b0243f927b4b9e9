"""A value written more often than MAX_PLACES_PER_VALUE: the index keeps its first places
(each explainer figure of the value was matched against every place: 10,000 "1"s of a
source and 2,500 of an explainer cost 51 s of CPU in POST /check), and a figure it can
no longer place says why. (No timing here: the work is bounded by what is indexed.)"""

from __future__ import annotations

from service.check import check_explainer, index_source
from service.check.caps import MAX_PLACES_PER_VALUE
from service.models import CheckStatus

_FILLER = " ".join(f"Kernel{i} runs 1.5x faster." for i in range(MAX_PLACES_PER_VALUE))


def _verdicts(explainer: str, source: str, text: str) -> list[tuple[CheckStatus, str | None]]:
    report = check_explainer(explainer, source)
    return [(n.status, n.reason) for n in report.numbers if n.text == text]


def test_a_value_keeps_its_first_places_and_counts_the_rest() -> None:
    source = _FILLER + " FlyDSL runs 1.5x faster. Triton runs 1.5x faster."
    idx = index_source(source, "")
    places = idx.singles[next(v for v in idx.singles if str(v) == "1.5")]
    assert len(places) == MAX_PLACES_PER_VALUE
    assert idx.cut.places == 2
    assert idx.cut.figures == idx.cut.rows == idx.cut.columns == 0


def test_a_figure_placed_past_the_cap_says_the_source_was_cut() -> None:
    source = _FILLER + " FlyDSL runs 1.5x faster."
    cut = (
        f"the source's figures were read only to the first {MAX_PLACES_PER_VALUE}"
        " places of each value (1 left out)"
    )
    [(status, reason)] = _verdicts("FlyDSL runs 1.5x faster.", source, "1.5x")
    assert status == CheckStatus.MISATTACHED
    assert reason is not None and reason.endswith(cut)
    # A place within the cap still backs its figure, with no reason to doubt it.
    assert _verdicts("Kernel7 runs 1.5x faster.", source, "1.5x") == [(CheckStatus.SUPPORTED, None)]


def test_a_value_at_the_cap_is_read_whole() -> None:
    source = " ".join(f"Kernel{i} runs 1.5x faster." for i in range(MAX_PLACES_PER_VALUE - 1))
    source += " FlyDSL runs 1.5x faster."
    assert index_source(source, "").cut.places == 0
    assert _verdicts("FlyDSL runs 1.5x faster.", source, "1.5x") == [(CheckStatus.SUPPORTED, None)]


def test_ranges_and_their_ends_are_capped_alike() -> None:
    source = " ".join(f"Kernel{i} gains 2-3x." for i in range(MAX_PLACES_PER_VALUE + 5))
    idx = index_source(source, "")
    assert [len(hits) for hits in idx.ranges.values()] == [MAX_PLACES_PER_VALUE]
    assert [len(hits) for hits in idx.range_lows.values()] == [MAX_PLACES_PER_VALUE]
    assert [len(hits) for hits in idx.range_highs.values()] == [MAX_PLACES_PER_VALUE]
    assert idx.cut.places == 3 * 5


def test_a_count_word_placed_past_the_cap_carries_a_place() -> None:
    # Its value's places all digits ("2 ms"), the word "two" past them: it was supported
    # with no source sentence or block (the word is written, none of its places read).
    source = " ".join(f"Run {i} took 2 ms." for i in range(MAX_PLACES_PER_VALUE))
    source += " We tested two models."
    report = check_explainer("We tested two models.", source)
    [(v)] = report.numbers
    assert (v.status, v.source, v.source_block) == (
        CheckStatus.MISATTACHED,
        "Run 0 took 2 ms.",
        0,
    )
    assert v.reason is not None and "places of each value" in v.reason
    # A count of no noun is backed by the value's first place, as digits are, and says it.
    [(v)] = check_explainer("Two of them ran.", source).numbers
    assert (v.status, v.source, v.source_block) == (CheckStatus.SUPPORTED, "Run 0 took 2 ms.", 0)
    # Within the cap the word's own place backs it.
    short = " ".join(f"Run {i} took 2 ms." for i in range(10)) + " We tested two models."
    [(v)] = check_explainer("We tested two models.", short).numbers
    assert (v.status, v.source) == (CheckStatus.SUPPORTED, "We tested two models.")
