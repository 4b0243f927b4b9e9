"""check: a source table's column header that names what its cells count ("GPUs" over
"256") is the count noun of its bare cells, as the words after a count in prose are: the
TorchTitan post's result tables (in the PyTorch blog feed's change of seed 000, whose
paragraphs are cut short but whose tables are whole)."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.titan_tables import flagged, results


@pytest.mark.parametrize(
    "sentence",
    [
        "The PP2-256 run used 256 GPUs.",
        "PP4-256 reached 1,325,624 global TPS on 256 GPUs.",
        "Learned routing at 96K context ran on 256 GPUs.",
        "The PP2-256 run used 120 microbatches.",  # under "LBS / microbatches"
        "The forced balanced runs used 512 GPUs at 192K context.",
        # "Peak HBM" states a maximum, as "Max value" does: "peaked at", "up to" restate it.
        "PP2-256 peaked at 243.86 GiB of HBM.",
        "PP2-256 used up to 243.86 GiB of HBM.",
        "PP2-256 used 243.86 GiB of HBM.",
    ],
)
def test_a_count_under_its_column_raises_no_alarm(sentence: str) -> None:
    assert flagged(sentence) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "The PP2-512 run used 60 GPUs.",  # the LBS / microbatches column's
        # The GPUs column's count said of other things.
        "The PP2-512 run used 512 microbatches.",
        "PP2-256 ran 256 microbatches.",
        "PP2-256 ran on 256 nodes.",
        "Learned routing ran on 256 nodes.",
        "PP2-256 used at least 243.86 GiB of HBM.",  # a peak, no lower bound
    ],
)
def test_a_count_said_of_another_noun_than_its_column_is_flagged(sentence: str) -> None:
    assert flagged(sentence) != []


def test_the_reason_names_what_the_column_counts() -> None:
    report = check_explainer("PP2-256 ran on 256 nodes.", results())
    verdict = next(n for n in report.numbers if n.text == "256")
    assert verdict.status.value == "misattached"
    assert verdict.reason == 'the source counts gpus there, not "nodes"'
