"""check: a value derived from two rows of a source table's column is of the column the
sentence compares and, for speed, the right way round: "PP2-512 has twice the TPS/GPU of
PP2-256" (5,262.68 against 5,324.21) was derived from the Global TPS column, "PP2-256 is
twice as fast as PP2-512" from the same two cells, "PP8-512 is 2.0x faster than PP2-256"
from the GPUs column, and "Forced balanced routing is 2x faster than learned routing" from
two contexts, 192K and 96K, of rows a shared label names neither of; and one of two
columns of one row is the sentence's only where it names them: "PP2-256 is 98% faster"
was derived from its TPS/GPU and DP cells."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import D, U, verdict
from tests.titan_tables import results

# A column of time: the faster row is the one of less time.
STEPS = "Step time by model.\n\n| Model | Step time (ms) | GPUs |\n|---|---|---|\n"
TIMED = STEPS + "| Alpha | 100 | 8 |\n| Beta | 200 | 16 |\n"


def _titan(sentence: str, written: str) -> tuple[str, str | None]:
    found = [n for n in check_explainer(sentence, results()).numbers if n.text == written]
    assert len(found) == 1
    return found[0].status.value, found[0].reason


@pytest.mark.parametrize(
    ("sentence", "written", "column"),
    [
        ("PP2-512 is about twice as fast as PP2-256.", "twice", "Global TPS"),
        ("PP2-256 is about 2x slower than PP2-512.", "2x", "Global TPS"),
        ("Compared with PP2-256, PP2-512 is twice as fast.", "twice", "Global TPS"),
        ("PP2-512 is 98% faster than PP2-256.", "98%", "Global TPS"),
        ("PP2-256 is 49% slower than PP2-512.", "49%", "Global TPS"),
        ("PP2-512 used twice the GPUs of PP2-256.", "twice", "GPUs"),
        # "512 GPUs" is a cell, not the measure compared.
        ("PP2-512, on 512 GPUs, is about twice as fast as PP2-256.", "twice", "Global TPS"),
        ("PP2-512, on 512 GPUs, is 98% faster than PP2-256.", "98%", "Global TPS"),
        ("PP2-256, on 256 GPUs, is 49% slower than PP2-512.", "49%", "Global TPS"),
    ],
)
def test_a_comparison_of_two_rows_of_the_column_it_names_is_derived(
    sentence: str, written: str, column: str
) -> None:
    status, reason = _titan(sentence, written)
    assert status == "derived"
    assert (reason or "").endswith(f", column {column})")


def test_a_comparison_of_two_rows_names_the_cells_it_is_computed_from() -> None:
    # 98% is also (5,324.21 - 128) / 5,324.21 of PP2-256's own TPS/GPU and DP cells: a
    # coincidence, no operands of the comparison the sentence makes.
    reason = _titan("PP2-512, on 512 GPUs, is 98% faster than PP2-256.", "98%")[1]
    assert reason == (
        "percent change of 2,694,493 and 1,362,998 (rows PP2-512 and PP2-256, column Global TPS)"
    )
    # The other way round stays flagged.
    assert _titan("PP2-512, on 512 GPUs, is 49% faster than PP2-256.", "49%")[0] == "unsupported"


@pytest.mark.parametrize(
    ("sentence", "written"),
    [
        # Another column: 5,262.68 / 5,324.21 TPS/GPU, 224.65 / 243.86 GiB.
        ("PP2-512 has twice the TPS/GPU of PP2-256.", "twice"),
        ("PP2-512 reaches twice the peak HBM of PP2-256.", "twice"),
        # The other way round: PP2-512 has the 2,694,493.
        ("PP2-256 is about twice as fast as PP2-512.", "twice"),
        ("PP2-512 is about 2x slower than PP2-256.", "2x"),
        # (2,694,493 - 1,362,998) / 2,694,493: PP2-256 is 49% slower, PP2-512 98% faster.
        ("PP2-512 is 49% faster than PP2-256.", "49%"),
        # A speed of two counts of GPUs (512 / 256); the Global TPS is 1.8x.
        ("PP8-512 is 2.0x faster than PP2-256.", "2.0x"),
        # "Learned" and "Forced balanced" each label a row at 256 GPUs and one at 512.
        ("Forced balanced routing is 2x faster than learned routing.", "2x"),
        ("Forced balanced routing delivers 2.1x the global TPS of learned routing.", "2.1x"),
    ],
)
def test_a_comparison_of_another_column_or_the_other_way_round_is_flagged(
    sentence: str, written: str
) -> None:
    assert _titan(sentence, written)[0] == "unsupported"


@pytest.mark.parametrize(
    ("explainer", "status"),
    [
        ("Alpha is 2x faster than Beta.", D),  # 100 ms against 200
        ("Beta is 2x slower than Alpha.", D),
        ("Beta is 2x faster than Alpha.", U),
        ("Alpha is 2x slower than Beta.", U),
        ("Beta uses 2x the GPUs of Alpha.", D),  # no speed: a count compared
    ],
)
def test_a_speed_of_a_time_column_is_read_the_other_way(explainer: str, status: object) -> None:
    assert verdict(explainer, TIMED, "2x").status == status


def test_a_speed_of_a_column_of_neither_time_nor_throughput_is_unsupported() -> None:
    # 16 / 8 GPUs is no speed, though the ratio is a column's.
    source = STEPS.replace("Step time (ms)", "Notes") + "| Alpha | fast | 8 |\n| Beta | ok | 16 |\n"
    assert verdict("Beta is 2x faster than Alpha.", source, "2x").status == U


# A label inside another row's label ("FP8" of "FP8 + fusion") names that row only where
# it stands alone: "FP8 + fusion is 1.2x faster" was derived from FP8's 120 and BF16's 100.
CONFIGS = "Throughput.\n\n| Config | Throughput (tok/s) |\n|---|---|\n"
FUSED = CONFIGS + "| BF16 | 100 |\n| FP8 | 120 |\n| FP8 + fusion | 150 |\n"


@pytest.mark.parametrize(
    ("explainer", "written", "status"),
    [
        ("FP8 + fusion is 1.2x faster than BF16.", "1.2x", U),
        ("FP8 + fusion is 1.5x faster than BF16.", "1.5x", D),
        ("FP8 is 1.2x faster than BF16.", "1.2x", D),
        ("FP8 + fusion is 1.25x faster than FP8.", "1.25x", D),
    ],
)
def test_a_label_inside_another_rows_label_names_its_row_alone(
    explainer: str, written: str, status: object
) -> None:
    assert verdict(explainer, FUSED, written).status == status


@pytest.mark.parametrize(
    ("sentence", "written", "status"),
    [
        # An amount: the row before "twice the", "2x more", "98% more" has the more, the
        # row before "51% of" is the part, the base of "N% more/less than" the row after.
        ("PP2-512 has twice the global TPS of PP2-256.", "twice", "derived"),
        ("PP2-256 has twice the global TPS of PP2-512.", "twice", "unsupported"),
        ("PP2-512 delivers 2x more global TPS than PP2-256.", "2x", "derived"),
        ("PP2-256 delivers 2x more global TPS than PP2-512.", "2x", "unsupported"),
        ("PP2-256 has 2x fewer GPUs than PP2-512.", "2x", "derived"),
        ("PP2-256 used twice the GPUs of PP2-512.", "twice", "unsupported"),
        ("PP2-256's global TPS is 51% of PP2-512's.", "51%", "derived"),
        ("PP2-512's global TPS is 51% of PP2-256's.", "51%", "unsupported"),
        ("PP2-512 has 98% more global TPS than PP2-256.", "98%", "derived"),
        ("PP2-512 has 49% more global TPS than PP2-256.", "49%", "unsupported"),
        ("PP2-256 has 49% less global TPS than PP2-512.", "49%", "derived"),
        ("PP2-512 used twice as many GPUs as PP2-256.", "twice", "derived"),
        ("PP2-256 used twice as many GPUs as PP2-512.", "twice", "unsupported"),
        # "As long as" says no amount of a throughput's cells: not read.
        ("PP2-256 takes about twice as long as PP2-512.", "twice", "derived"),
        ("PP2-512 has 49% less global TPS than PP2-256.", "49%", "unsupported"),
    ],
)
def test_an_amount_of_two_rows_is_read_the_right_way_round(
    sentence: str, written: str, status: str
) -> None:
    assert _titan(sentence, written)[0] == status


@pytest.mark.parametrize("header", ["Tokens/sec", "Samples per second", "Throughput", "TPS"])
def test_a_speed_of_a_throughput_column_named_in_words_is_read(header: str) -> None:
    source = f"Speed.\n\n| Model | {header} |\n|---|---|\n| Alpha | 200 |\n| Beta | 100 |\n"
    assert verdict("Alpha is 2x faster than Beta.", source, "2x").status == D
    assert verdict("Beta is 2x faster than Alpha.", source, "2x").status == U


@pytest.mark.parametrize(
    ("explainer", "status"),
    [
        # The column named, its unit aside ("Step time (ms)"): not the GPUs' 16 / 8.
        ("Alpha has 2x lower step time than Beta.", D),
        ("Alpha has 2x higher step time than Beta.", U),
        # "2x the speed of", "2x as long as": no amount of a cell's, not read either way.
        ("Alpha runs at 2x the speed of Beta.", D),
        ("Beta takes 2x as long as Alpha.", D),
    ],
)
def test_an_amount_of_a_time_column_is_read_by_its_words(explainer: str, status: object) -> None:
    v = verdict(explainer, TIMED, "2x")
    assert v.status == status
    if "step time" in explainer:
        assert status == U or (v.reason or "").endswith("column Step time (ms))")


# Two cells of one row are two measures: a value computed from them is the sentence's
# only where it names both columns, or one and a claim whose unsaid base is the other,
# the right way round. "PP2-256 is 98% faster" was derived from (5,324.21 - 128) /
# 5,324.21, its TPS/GPU and DP cells, and "the kernel is 2.25x faster" from the two
# latencies of a row the sentence names neither column of.
TWO_COLUMNS = (
    "Kernel latency by shape.\n\n| Shape | ATen (ms) | FlyDSL (ms) |\n|---|---|---|\n"
    "| Small | 3.0 | 1.5 |\n| Large | 9.0 | 4.0 |\n\n"
    "Training throughput.\n\n| Model | BF16 TFLOPS | FP8 TFLOPS |\n|---|---|---|\n"
    "| Llama 8B | 400 | 520 |\n| Llama 70B | 380 | 570 |\n"
)


def test_a_value_of_two_columns_of_one_row_that_names_neither_is_unsupported() -> None:
    for sentence in ("PP2-256 is 98% faster.", "On PP2-256, throughput is 98% higher."):
        status, reason = _titan(sentence, "98%")
        assert (status, reason) == ("unsupported", "not in the source")


@pytest.mark.parametrize(
    ("explainer", "written", "status"),
    [
        # Both columns named, by the words that tell their headers apart ("FP8", "BF16").
        ("On the small shape, FlyDSL is 2x faster than ATen.", "2x", D),
        ("On the large shape, FlyDSL takes 2.25x less time than ATen.", "2.25x", D),
        ("On Llama 70B, FP8 is 50% faster than BF16.", "50%", D),
        ("On Llama 70B, BF16 is 50% faster than FP8.", "50%", U),
        ("On the small shape, ATen is 2x faster than FlyDSL.", "2x", U),
        # One named, the other the base the claim leaves unsaid.
        ("On the small shape, FlyDSL is 2x faster.", "2x", D),
        ("On the small shape, ATen is 2x faster.", "2x", U),
        # Neither: no computation the sentence asks for.
        ("On the large shape, the kernel is 2.25x faster.", "2.25x", U),
        ("For Llama 70B, throughput is 50% higher.", "50%", U),
        ("Llama 70B is 50% faster.", "50%", U),  # (1.5 / 3.0 of the other table too)
    ],
)
def test_a_value_of_two_columns_of_one_row_is_read_where_the_sentence_names_them(
    explainer: str, written: str, status: object
) -> None:
    v = verdict(explainer, TWO_COLUMNS, written)
    assert v.status == status
    if status == D:
        assert (v.reason or "").startswith(("ratio of ", "percent change of "))


@pytest.mark.parametrize(
    "sentence",
    [
        # A measure per GPU, in words: TPS/GPU is 5,262.68 against 5,324.21, no 2x (the
        # four were derived from Global TPS, the column the words "per GPU" do not name).
        "PP2-512 has 2x the TPS per GPU of PP2-256.",
        "PP2-512 is 2x faster per GPU than PP2-256.",
        "Per GPU, PP2-512 is 2x faster than PP2-256.",
        "PP2-512 reaches 2x the TFLOPs per GPU of PP2-256.",
    ],
)
def test_a_comparison_per_gpu_is_of_a_column_per_gpu(sentence: str) -> None:
    assert _titan(sentence, "2x")[0] == "unsupported"


def test_a_measure_per_gpu_named_in_words_is_its_column() -> None:
    status, reason = _titan("PP2-256 has about 1% more TPS per GPU than PP2-512.", "1%")
    assert status == "derived"
    assert reason == (
        "percent change of 5,324.21 and 5,262.68 (rows PP2-256 and PP2-512, column TPS/GPU)"
    )
    # "per GPU" alone: a column per GPU (TPS/GPU and TFLOPs/GPU agree here).
    status, reason = _titan("Per GPU, PP2-256 is about 1% faster than PP2-512.", "1%")
    assert status == "derived"
    assert (reason or "").endswith("/GPU)")
