"""check: a figure is said of the names near it in the source (binding), the post title included."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.clean import article_from_document
from service.models import CheckStatus
from tests.check_helpers import FLYDSL, D, M, S, U, status, verdict

# --- binding --------------------------------------------------------------------------------------

FORMATS = "MXFP8 GEMM runs 1.58x faster than ATen. MXFP4 GEMM runs 1.68x faster than ATen."


def test_a_figure_right_after_a_name_is_checked_as_a_figure() -> None:
    # "MXFP4 1.68 times" was read as one model name, and unsupported.
    explainer = "MXFP8 GEMM runs 1.58 times faster than ATen, and MXFP4 1.68 times."
    assert status(explainer, FORMATS, "1.68 times") == S
    swapped = "MXFP8 GEMM runs 1.68 times faster than ATen, and MXFP4 1.58 times."
    assert status(swapped, FORMATS, "1.58 times") == M


def test_a_figure_compared_with_a_measured_one_is_in_its_unit() -> None:
    source = (
        "The fusion recovered 89% of the overhead (5,996 → 7,027 tok/s vs 7,156 BF16 baseline)."
    )
    assert (
        status("The BF16 baseline is 7,156 tokens per second.", source, "7,156 tokens per second")
        == S
    )
    assert status("The BF16 baseline is 7,156 ms.", source, "7,156 ms") == U


def test_a_change_is_no_span_of_the_values_of_a_sentence() -> None:
    source = (
        "The fusion recovered 89% of the overhead (5,996 → 7,027 tok/s vs 7,156 BF16 baseline)."
    )
    explainer = "Throughput went up from 5,996 to 7,156 tok/s."
    assert status(explainer, source, "5,996 to 7,156 tok/s") == U
    assert (
        status("Throughput ranges from 5,996 to 7,156 tok/s.", source, "5,996 to 7,156 tok/s") == D
    )


def test_a_number_must_stand_near_the_same_names_in_the_source() -> None:
    assert status("MXFP8 runs 1.58 times faster.", FORMATS, "1.58 times") == S
    v = verdict("MXFP4 runs 1.58 times faster.", FORMATS, "1.58 times")
    assert v.status == M
    assert v.source == "MXFP8 GEMM runs 1.58x faster than ATen."


def test_model_names_bind_within_a_clause() -> None:
    source = (
        "BF16 gains peak for Llama-3.1-8B at 1.13x; Qwen3-32B peaks at 1.06x, while "
        "Llama-3.3-70B stays within noise."
    )
    ok = "It reached 1.13 times for Llama-3.1-8B-Instruct and 1.06 times for Qwen3-32B."
    assert status(ok, source, "1.13 times") == S
    assert status(ok, source, "1.06 times") == S
    moved = "It reached 1.13 times for Qwen3-32B."
    assert status(moved, source, "1.13 times") == M


def test_swapped_figures_in_one_sentence_are_misattached() -> None:
    source = "Across 24 cases, FlyDSL reaches 1.20x over Triton and 1.95x over ATen."
    straight = "It is 1.20 times faster than Triton and 1.95 times faster than ATen."
    assert {n.status for n in check_explainer(straight, source).numbers} == {S}
    swapped = "It is 1.95 times faster than Triton and 1.20 times faster than ATen."
    report = check_explainer(swapped, source)
    assert [(n.text, n.status) for n in report.numbers] == [("1.95 times", M), ("1.20 times", M)]


def test_respectively_pairs_numbers_and_names_in_order() -> None:
    source = "MXFP8 reaches 1.58x and MXFP4 reaches 1.68x over ATen."
    ok = "Speedups were 1.58 and 1.68 times for MXFP8 and MXFP4, respectively."
    assert not check_explainer(ok, source).count(M)
    swapped = "Speedups were 1.68 and 1.58 times for MXFP8 and MXFP4, respectively."
    assert check_explainer(swapped, source).count(M) == 2
    # The names before the figures pair with them the same way (they were not paired:
    # both figures held for both names).
    ok = "MXFP8 and MXFP4 reach 1.58 and 1.68 times, respectively."
    assert not check_explainer(ok, source).count(M)
    swapped = "MXFP4 and MXFP8 reach 1.58 and 1.68 times, respectively."
    assert check_explainer(swapped, source).count(M) == 2
    # Three names before two figures: which two go with them is not sure; none is paired.
    unsure = "ATen's MXFP4 and MXFP8 reach 1.58 and 1.68 times, respectively."
    assert not check_explainer(unsure, source).count(M)


@pytest.mark.parametrize(
    "source",
    [
        # The like figures of the sentence before, each with its own name ...
        "FlyDSL reaches 1.20x over Triton and 1.95x over ATen. Uniform groups reach 1.21x"
        " and 2.12x, respectively.",
        # ... else its last list of as many names.
        "We compare against Triton and ATen. Uniform groups reach 1.21x and 2.12x, respectively.",
    ],
)
def test_a_source_respectively_pairs_with_the_sentence_before(source: str) -> None:
    assert status("Uniform groups reach 1.21x over Triton.", source, "1.21x") == S
    assert status("Uniform groups reach 2.12x over ATen.", source, "2.12x") == S
    wrong = verdict("Uniform groups reach 1.21x over ATen.", source, "1.21x")
    assert (wrong.status, wrong.reason) == (M, "the source gives it for Triton")
    # A list of as many names in its own sentence is its own (the binding reads it).
    own = source.replace("respectively", "for BF16 and MXFP8, respectively")
    assert status("Uniform groups reach 1.21x over Triton.", own, "1.21x") == M


# The sentence right after, in the same paragraph, that lists as many figures of the unit
# with no names but those said before, goes on with the pairing.
PAIRED = (
    "FlyDSL reaches 1.20x over Triton and 1.95x over ATen. Uniform groups reach 1.21x and"
    " 2.12x, respectively, with FlyDSL fastest. The projection cases reach 1.23x and 1.73x;"
    " the ragged cases reach 1.15x and 1.74x."
)


def test_a_source_respectively_goes_on_in_the_next_sentence() -> None:
    assert status("The projection cases reach 1.23x over Triton.", PAIRED, "1.23x") == S
    assert status("The projection cases reach 1.73x over ATen.", PAIRED, "1.73x") == S
    assert status("The ragged cases reach 1.15x over Triton.", PAIRED, "1.15x") == S
    assert status("The ragged cases reach 1.74x over ATen.", PAIRED, "1.74x") == S
    wrong = verdict("The projection cases reach 1.23x over ATen.", PAIRED, "1.23x")
    assert (wrong.status, wrong.reason) == (M, "the source gives it for Triton")
    assert status("The ragged cases reach 1.74x over Triton.", PAIRED, "1.74x") == M


@pytest.mark.parametrize(
    "source",
    [
        # A name of its own: the figures may be said over it.
        PAIRED.replace("The projection cases", "On MI300, the projection cases"),
        # Not as many figures.
        PAIRED.replace("1.23x and 1.73x;", "1.23x, 1.30x and 1.73x;"),
        # Not right after the pairing.
        PAIRED.replace("fastest. The", "fastest. Others lag. The"),
        # In another paragraph.
        PAIRED.replace("fastest. The", "fastest.\n\nThe"),
    ],
)
def test_a_source_respectively_goes_on_only_in_a_like_sentence_right_after(source: str) -> None:
    assert status("The projection cases reach 1.23x over Triton.", source, "1.23x") == M


# One source clause with two figures and their names: all the explainer's names stand in
# it, but the figure it ties to one of them is the other figure's.


def test_a_hardware_name_of_another_figure_is_not_borrowed() -> None:
    v = verdict("Speedup was 2x on H100.", "The speedup is 2x on A100 and 1.5x on H100.", "2x")
    # Not "rounded from 1.5x" either: the source writes 2x, for A100.
    assert (v.status, v.reason) == (M, "the source gives it for A100")
    assert (
        status("Speedup was 2x on A100.", "The speedup is 2x on A100 and 1.5x on H100.", "2x") == S
    )


def test_a_format_name_of_another_figure_is_not_borrowed() -> None:
    source = "MXFP8 shows 1.58x over ATen and MXFP4 1.68x over ATen."
    v = verdict("MXFP4 gained 1.58x over ATen.", source, "1.58x")
    assert (v.status, v.reason) == (M, "the source gives it for MXFP8")
    assert status("MXFP8 gained 1.58x over ATen.", source, "1.58x") == S
    assert status("MXFP4 gained 1.68x over ATen.", source, "1.68x") == S
    # A name only the other figure has, borrowed: TopK is both's, ATen 4.82x's alone.
    source = "TopK is 4.82x faster than ATen and 1.5x faster than Triton."
    assert status("TopK is 1.5x faster than ATen.", source, "1.5x") == M


def test_a_name_borrowed_from_another_figure_of_the_flydsl_post_is_misattached() -> None:
    source = article_from_document(FLYDSL.read_bytes(), filename=FLYDSL.name).text
    claim = "On MI355X, MXFP4 scaled GEMM reached a 1.58x geometric-mean speedup over ATen."
    v = verdict(claim, source, "1.58x")
    assert v.status == M
    assert v.reason is not None and "MXFP8" in v.reason  # 1.58x is MXFP8's there
    assert status(claim.replace("1.58x", "1.68x"), source, "1.68x") == S
    assert status(claim.replace("MXFP4", "MXFP8"), source, "1.58x") == S


def test_the_name_that_tells_a_later_item_of_a_list_apart_is_not_borrowed() -> None:
    """A list sentence's later item is told apart by its first name of its own: not the
    earlier figures' (RMSNorm is not the 1.20x's); a name after it, or after a bare list
    of figures, may be said once for all."""
    source = (
        "FlyDSL provides 1.20x over Triton across all 24 grouped-GEMM cases, and "
        "1.17x-3.66x over ATen across the 22 RMSNorm cases."
    )
    v = verdict("RMSNorm is 1.20x faster than Triton.", source, "1.20x")
    assert (v.status, v.reason) == (M, "the source gives it for other things than RMSNorm")
    assert status("FlyDSL is 1.20x faster than Triton on RMSNorm.", source, "1.20x") == M
    assert status("Grouped GEMM is 1.20x faster than Triton.", source, "1.20x") == S
    assert status("RMSNorm is 1.17x to 3.66x faster than ATen.", source, "1.17x to 3.66x") == S
    source = "FlyDSL gives 1.58x for MXFP8 and 1.68x for MXFP4 on MI355X."
    assert status("FlyDSL gives 1.58x for MXFP8 on MI355X.", source, "1.58x") == S
    assert status("FlyDSL gives 1.58x for MXFP4 on MI355X.", source, "1.58x") == M
    source = "The kernel is 1.1x faster for RMSNorm, 1.2x for TopK and 1.3x for GEMM over Triton."
    assert status("The kernel is 1.1x faster for RMSNorm over Triton.", source, "1.1x") == S
    assert status("The kernel is 1.1x faster for GEMM.", source, "1.1x") == M
    source = "RMSNorm, TopK and GEMM are 1.1x, 1.2x and 1.3x faster than Triton."
    assert status("RMSNorm is 1.1x faster than Triton.", source, "1.1x") == S
    assert status("TopK is 1.2x faster than Triton.", source, "1.2x") == S


def test_a_name_of_a_figure_set_against_this_one_is_not_borrowed() -> None:
    source = (
        "The fusion recovered 89% of the overhead (5,996 → 7,027 tok/s vs 7,156 BF16 baseline)."
    )
    v = verdict("The BF16 baseline is 7,027 tok/s.", source, "7,027 tok/s")
    assert (v.status, v.reason) == (M, "the source gives it for other things than BF16")
    assert status("The BF16 baseline is 7,156 tok/s.", source, "7,156 tok/s") == S
    # Left out, not set against: "4.02x" is over ATen too.
    source = "TopK is 4.82x faster than ATen with them disabled, and 4.02x with them enabled."
    assert status("TopK is 4.02x faster than ATen.", source, "4.02x") == S


def test_a_figure_of_a_coordinated_subject_keeps_the_shared_name() -> None:
    """TopK is said of both figures, Triton of 1.5x alone: the explainer names it, so
    TopK is not borrowed from 4.82x."""
    source = "TopK is 4.82x faster than ATen and 1.5x faster than Triton."
    assert status("TopK is 1.5x faster than Triton.", source, "1.5x") == S
    assert status("TopK is 4.82x faster than ATen.", source, "4.82x") == S


def test_a_bare_count_binds_to_its_noun() -> None:
    source = "Each request has a 256-token input. The model has 512 experts."
    assert status("Inputs were 256 tokens long.", source, "256") == S
    assert status("Inputs were 512 tokens long.", source, "512") == M
    assert status("Inputs were 512 tok long.", source, "512") == M


def test_a_number_without_names_inherits_the_previous_sentence() -> None:
    source = (
        "## TopK\n\nTopK is 4.82x faster than ATen. With determinism it is 4.02x faster.\n\n"
        "## RMSNorm\n\nRMSNorm is 1.58x faster than ATen."
    )
    ok = "TopK runs 4.82 times faster than ATen. With determinism, the speedup is 4.02 times."
    assert not check_explainer(ok, source).count(M)
    moved = "TopK runs 4.82 times faster than ATen. With determinism, the speedup is 1.58 times."
    assert status(moved, source, "1.58 times") == M


def test_names_carried_from_further_back_are_found_earlier_in_the_source_paragraph() -> None:
    """The explainer keeps the names of the last sentence that bound some (here two back,
    past a sentence with none): the source may have them anywhere before in its paragraph,
    not only in the sentence before (a copied paragraph was misattached)."""
    source = (
        "Figure 5: the trace on 8x MI325X GPU shows a 17% gain. Left: the eager chain. "
        "Forward time goes from ~19 ms to ~7 ms.\n\n"
        "On MI300X GPU the forward time is 9 ms."
    )
    copied = source.split("\n\n", 1)[0]
    assert check_explainer(copied, source).ok
    # Still bound: said of another GPU than the source paragraph's, the figure is not backed.
    other = copied.replace("MI325X", "MI300X")
    assert status(other, source, "19 ms to ~7 ms") == M  # one change, hedged as the source's


def test_a_row_of_an_explainers_own_table_is_read_cell_by_cell() -> None:
    """A rendered row ("Component: ROCm | 2.14: 7.2, 7.14. 7.1 dropped; 7.14 via TheRock")
    is split at its cells, not at a semicolon inside one: its column headers (2.13, 2.14)
    are backed by the source table's header."""
    source = (
        "## Versions\n\nPyTorch 2.14 is out.\n\n| Component | 2.13 | 2.14 |\n| --- | --- | --- |\n"
        "| CUDA | 12.6, 13.0 | 12.6, 13.2 |\n"
        "| ROCm | 7.1, 7.2 | 7.2, 7.14. 7.1 dropped; 7.14 via TheRock |\n"
    )
    report = check_explainer(source, source)
    assert report.numbers
    assert {n.text: n.status for n in report.numbers if n.status != S} == {}
    swapped = source.replace("| ROCm | 7.1, 7.2 | 7.2, 7.14.", "| ROCm | 7.2, 7.14 | 7.1, 7.2.")
    crossed = check_explainer(swapped.split("\n\n", 2)[2], source)
    assert {n.text for n in crossed.numbers if n.status != S} >= {"7.14"}


def test_a_figure_of_an_explainers_own_table_is_said_of_its_row_label() -> None:
    # A row "Format: MXFP8 | Speedup: 1.68x" bound its figure to nothing (no window of
    # words crosses the cells): two figures swapped between rows passed.
    source = "MXFP8 reached 1.58x and MXFP4 reached 1.68x over ATen on 17 shapes."
    table = "| Format | Speedup | Shapes |\n|---|---|---|\n| MXFP8 | {} | 17 |\n| MXFP4 | {} | 17 |"
    same = check_explainer(table.format("1.58x", "1.68x over ATen"), source)
    assert [n.status for n in same.numbers] == [S] * 6
    swapped = check_explainer(table.format("1.68x", "1.58x over ATen"), source)
    assert {n.text: n.status for n in swapped.numbers if n.status != S} == {"1.68x": M, "1.58x": M}


def test_a_figure_without_names_near_it_takes_its_own_sentence_first() -> None:
    source = (
        "HiF8 reaches parity with FP16 and a 1.5x GEMM speedup.\n\n"
        "The talk covers Helion. Early results say that the experimental Helion backend "
        "can reduce latency by up to 50%.\n\n"
        "MXFP8 speedups range from 1.31x to 2.23x, with the largest gain at 32 × 4096 × 4096. "
        "Gains are strongest at 64 × 4096 × 4096 for BF16."
    )
    after = "HiF8 reaches parity with FP16 and a 1.5x GEMM speedup. "
    helion = (
        "Early results say that the experimental Helion backend can reduce latency by up to 50%."
    )
    assert status(after + helion, source, "50%") == S  # its clause names Helion, not HiF8
    aside = helion.replace("backend", "backend (the part that does the work)")
    assert status(after + aside, source, "50%") == S  # an aside does not end the clause
    triton = helion.replace("Helion", "Triton")
    assert status(after + triton, source, "50%") == M
    mxfp8 = "MXFP8 speedups range from 1.31x to 2.23x, with the largest gain at 32 × 4096 × 4096."
    report = check_explainer(after + mxfp8, source)
    assert [n.status for n in report.numbers if n.text == "4096"] == [S, S]


def test_the_post_title_is_source_too() -> None:
    text = "It is the fastest model of the series yet, and cheaper to run."
    title = "Gemini 3.5 Flash: frontier intelligence"
    explainer = "Gemini 3.5 Flash: Frontier intelligence"
    assert status(explainer, text, "3.5") == U
    (v,) = check_explainer(explainer, text, title=title).numbers
    assert (v.status, v.source, v.source_block) == (S, title, None)
    assert check_explainer("Gemini 3.6 Flash is out.", text, title=title).numbers[0].status == U


def _titled(explainer: str, source: str, figure: str, title: str) -> CheckStatus:
    report = check_explainer(explainer, source, title=title)
    return next(n.status for n in report.numbers if n.text == figure)


FP8_TITLE = "FP8 training on AMD GPUs"


def test_a_name_of_the_post_title_is_context_for_its_figures() -> None:
    # The post is about FP8: a figure whose clause names nothing is FP8's.
    source = (
        "We tested FP8 and BF16.\n\n## Results\n\nThe fused run reached 7,027 tok/s on Llama3-8B."
    )
    explainer = "FP8 reached 7,027 tok/s on Llama3-8B."
    assert _titled(explainer, source, "7,027 tok/s", "") == M
    assert _titled(explainer, source, "7,027 tok/s", FP8_TITLE) == S
    # The title does not stand in for a name it lacks, nor for the clause's own names.
    assert _titled("BF16 reached 7,027 tok/s on Llama3-8B.", source, "7,027 tok/s", FP8_TITLE) == M
    other = "FP8 reached 7,027 tok/s on Qwen3-32B. Qwen3-32B is larger."
    assert _titled(other, source + " Qwen3-32B is larger.", "7,027 tok/s", FP8_TITLE) == M


@pytest.mark.parametrize(
    "source",
    [
        # The clause gives the figure to another format: it wins over the title.
        "## Results\n\nThe fused run reached 7,027 tok/s. BF16 reached 7,156 tok/s.",
        "Throughput: 7,027 tok/s vs 7,156 BF16 baseline.",
        # So does the heading over it, or the sentence before it, when it names a thing of
        # the kind of the title's name (a number in both).
        "## Comparison with BF16\n\nThe baseline reached 7,156 tok/s.",
        "We also trained in BF16. The baseline reached 7,156 tok/s.",
    ],
)
def test_a_name_the_source_gives_the_figure_wins_over_the_title(source: str) -> None:
    assert _titled("FP8 reached 7,156 tok/s.", source, "7,156 tok/s", FP8_TITLE) == M
    # The reason names the source's own name for it, not the title's as missing.
    report = check_explainer("FP8 reached 7,156 tok/s.", source, title=FP8_TITLE)
    (v,) = [n for n in report.numbers if n.text == "7,156 tok/s"]
    assert v.reason == "the source gives it for BF16", v


def test_a_heading_of_another_kind_leaves_the_title_its_figures() -> None:
    # "Triton" in the heading is no format: the figure under it is still FP8's.
    source = "## Triton kernel optimization\n\nOne fused kernel. It reached 7,027 tok/s."
    assert _titled("FP8 reached 7,027 tok/s.", source, "7,027 tok/s", FP8_TITLE) == S
