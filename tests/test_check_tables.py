"""check: figures of the source's tables and of the explainer's own, by row and column;
where a verdict points in the source."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.models import CheckStatus
from service.text import split_blocks
from tests.check_helpers import M, S, U, status, verdict

VERSIONS = (
    "## Versions\n\n| Component | 2.13 | 2.14 |\n| --- | --- | --- |\n"
    "| CUDA | 12.6, 13.0 | 12.6, 13.2 |\n| ROCm | 7.1, 7.2 | 7.2, 7.14 |\n\n"
    "Continuing the migration begun in 2.13, more operators moved to Metal.\n\n"
    "| Workload | Optimization | Result |\n| --- | --- | --- |\n"
    "| Llama3-8B (dense) | Rowwise FP8 | +13.4% throughput |\n"
    "| DeepSeek-V3 671B | Forward pass fusion | +17% end-to-end |\n"
)


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        ("CUDA: 12.6, 13.0 in 2.13; 12.6, 13.2 in 2.14.", {}),
        ("ROCm: 7.1, 7.2 in 2.13; 7.2, 7.14 in 2.14.", {}),
        ("Llama3-8B (dense): optimization Rowwise FP8; result +13.4% throughput.", {}),
        ("DeepSeek-V3 671B: result +17% end-to-end.", {}),
        # Under the wrong column, or said of another row.
        ("ROCm: 7.14 in 2.13; 7.1 in 2.14.", {"7.14": M, "7.1": M}),
        ("CUDA: 12.6, 13.2 in 2.13.", {"13.2": M}),
        ("Llama3-8B (dense): result +17% end-to-end.", {"+17%": M}),
    ],
)
def test_a_sentence_restating_a_table_row_binds_cell_by_column(
    explainer: str, expected: dict[str, CheckStatus]
) -> None:
    report = check_explainer(explainer, VERSIONS)
    assert report.numbers
    assert {n.text: n.status for n in report.numbers if n.status != S} == expected


def test_table_cells_count_with_their_headers() -> None:
    source = (
        "# Results\n\nThe speedups:\n\n| Model | Speedup |\n| --- | --- |\n"
        "| Llama-3.1-8B | 1.5x |\n| Qwen3-32B | 2.0x |\n"
    )
    v = verdict("Llama-3.1-8B gained 1.5 times.", source, "1.5 times")
    assert v.status == S
    assert v.source == "Model: Llama-3.1-8B | Speedup: 1.5x"
    assert split_blocks(source)[v.source_block or 0].kind == "table"
    assert status("Qwen3-32B gained 1.5 times.", source, "1.5 times") == M


FORMAT_TABLE = (
    "Results on MI355X:\n\n| Model | BF16 | MXFP8 | MXFP4 |\n| --- | --- | --- | --- |\n"
    "| Llama-3.1-8B | 1.13x | 1.45x | 1.90x |\n| Qwen3-32B | 1.05x | 2.04x | 3.01x |\n"
)


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("Llama-3.1-8B gains 1.90x with MXFP4.", "1.90x", S),
        ("Qwen3-32B gains 2.04x with MXFP8 on MI355X.", "2.04x", S),
        # Every header is in each row's context: any column's name held for any cell.
        ("Llama-3.1-8B gains 1.90x with MXFP8.", "1.90x", M),
        ("Qwen3-32B gains 3.01x with MXFP8.", "3.01x", M),
        ("Qwen3-32B reaches 2.04x in BF16.", "2.04x", M),
    ],
)
def test_a_figure_of_a_table_cell_is_said_of_its_own_column(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    v = verdict(explainer, FORMAT_TABLE, written)
    assert v.status == expected
    if expected == M:
        assert v.reason in ("the source gives it for MXFP4", "the source gives it for MXFP8")


def test_a_column_of_another_measure_does_not_take_a_figure_from_its_row() -> None:
    # A speedup over ATen is FlyDSL's, though "FlyDSL (ms)" heads another column: that
    # column holds times, not speedups (it was misattached, for "Speedup").
    source = (
        "| Shape | ATen (ms) | FlyDSL (ms) | Speedup |\n|---|---|---|---|\n"
        "| 4096 | 2.26 | 2.00 | 1.13x |\n"
    )
    assert status("FlyDSL reaches 1.13x over ATen.", source, "1.13x") == S


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("ATen takes 2.26 ms.", "2.26 ms", S),  # it was unsupported: "another unit"
        ("FlyDSL takes 2.00 ms.", "2.00 ms", S),
        ("FlyDSL takes 2.00 s.", "2.00 s", U),
        ("FlyDSL takes 2.26 ms.", "2.26 ms", M),  # ATen's time
        ("FlyDSL reaches 1.13x over ATen.", "1.13x", S),
        ("FlyDSL reaches 1.13% over ATen.", "1.13%", U),
    ],
)
def test_a_bare_cell_takes_the_unit_its_column_header_gives(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    source = (
        "| Shape | ATen (ms) | FlyDSL (ms) | Speedup (x) |\n|---|---|---|---|\n"
        "| 4096 | 2.26 | 2.00 | 1.13 |\n"
    )
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("Alpha trained for 36 hours.", "36 hours", S),  # it was unsupported: "another unit"
        ("Alpha trained for 36 minutes.", "36 minutes", U),
        ("Beta trained for 12 hours.", "12 hours", S),
    ],
)
def test_a_header_that_is_a_unit_alone_gives_its_cells_the_unit(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    source = "| Cluster | Hours | x |\n|---|---|---|\n| Alpha | 36 | 2 |\n| Beta | 12 | 4 |\n"
    assert status(explainer, source, written) == expected
    # A one-letter header is a coordinate or a dimension, no unit: "2" is no 2x.
    assert status("Alpha reaches 2x.", source, "2x") == U


def test_a_name_of_its_own_column_or_row_is_no_other_column() -> None:
    # A name in the header of the figure's own column, or in its row's label, is its own.
    source = (
        "| Model | MXFP8 speedup | MXFP4 speedup |\n| --- | --- | --- |\n"
        "| MXFP4 Llama | 1.45x | 1.90x |\n"
    )
    assert status("MXFP4 Llama gains 1.45x with MXFP8.", source, "1.45x") == S


def test_source_block_points_into_the_split_source() -> None:
    source = "# Title\n\nIntro without numbers.\n\nFlyDSL is 1.10x faster on MI355X."
    v = verdict("It is 1.10 times faster.", source, "1.10 times")
    assert v.source_block == 2
    assert split_blocks(source)[2].text == v.source
    assert v.sentence == "It is 1.10 times faster."


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        ("| GPUs | 8 |", S),  # a name's capitals stay ("GPUs", not "GPus")
        ("| Setting | Value |\n| --- | --- |\n| GPUs | 8 |\n| Nodes | 4 |", S),
        # A row's label says what its count alone in a cell counts: no 8 nodes.
        ("| Nodes | 8 |", M),
        ("| Setting | Value |\n| --- | --- |\n| Nodes | 8 |", M),
    ],
)
def test_a_rows_label_says_what_its_count_counts(explainer: str, expected: CheckStatus) -> None:
    source = "We ran the benchmark on 8 GPUs with 4 nodes."
    assert {v.status for v in check_explainer(explainer, source).numbers} == {expected}


def test_a_rows_label_keeps_the_capitals_of_a_name_within_a_word() -> None:
    """Only a whole title-cased word of a label reads in lower case: "PyTorch" is no
    "py" and "torch" (both lower case in this source) that name nothing."""
    source = (
        "PyTorch shipped 3 releases this year; TensorFlow shipped 5 releases. "
        "Try torch.compile in python."
    )
    assert status("| PyTorch Releases | 3 |", source, "3") == S
    assert status("| PyTorch Releases | 5 |", source, "5") == M


MAX_ROW = "| Property | e4m3fnuz |\n| --- | --- |\n| Max value | 240 |\n| Bits | 8 |"
MAX_COLUMN = "| Format | Max value | Bits |\n| --- | --- | --- |\n| e4m3fnuz | 240 | 8 |"
MINUTES = "| Step | Time (min) |\n| --- | --- |\n| Warmup | 5 |"
# The word in brackets after the label's first words ("(min)" alone stays minutes).
VALUE_MAX = "| Property | e4m3fnuz |\n| --- | --- |\n| Value (max) | 240 |\n| Bits | 8 |"
PEAK_MAX = "| Format | Peak (max) value | Bits |\n| --- | --- | --- |\n| e4m3fnuz | 240 | 8 |"
VALUE_MIN = "| Property | e4m3fnuz |\n| --- | --- |\n| Value (minimum) | 240 |"


# A row's label or a column's header that says "max"/"min" states its cells as a maximum
# or minimum, as "has a max of 240" does: an upper (lower) bound, of its side only.
@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        ("The e4m3fnuz format has a minimum of 240.", MAX_ROW, "240", U),
        ("The e4m3fnuz format has a maximum of 240.", MAX_ROW, "240", S),
        ("e4m3fnuz values go up to 240.", MAX_ROW, "240", S),
        ("e4m3fnuz values are at least 240.", MAX_ROW, "240", U),
        ("The e4m3fnuz format has a minimum of 8.", MAX_ROW, "8", S),  # another row
        ("The e4m3fnuz format has a minimum of 240.", MAX_COLUMN, "240", U),
        ("e4m3fnuz values go up to 240.", MAX_COLUMN, "240", S),
        ("The e4m3fnuz format has a minimum of 8.", MAX_COLUMN, "8", S),  # another column
        # "(min)" in a header is its unit, minutes: no minimum (no lower bound either).
        ("Warmup takes at least 5 minutes.", MINUTES, "5 minutes", U),
        ("The e4m3fnuz format has a minimum of 240.", VALUE_MAX, "240", U),
        ("e4m3fnuz values go up to 240.", VALUE_MAX, "240", S),
        ("e4m3fnuz values are at least 240.", VALUE_MAX, "240", U),
        ("The e4m3fnuz format has a minimum of 8.", VALUE_MAX, "8", S),  # another row
        ("The e4m3fnuz format has a minimum of 240.", PEAK_MAX, "240", U),
        ("e4m3fnuz values go up to 240.", PEAK_MAX, "240", S),
        ("e4m3fnuz values go up to 240.", VALUE_MIN, "240", U),
        ("e4m3fnuz values are at least 240.", VALUE_MIN, "240", S),
    ],
)
def test_a_row_or_column_named_max_or_min_states_a_bound(
    explainer: str, source: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected
