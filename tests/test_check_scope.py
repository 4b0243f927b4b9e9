"""check: what a figure's clause says beyond its names (service/check/scope.py). The
condition it was measured under ("with them enabled"), what a hyphenated count counts
("512-token output") and the names of a parenthesis of other figures must agree with the
source's clause of the figure; faithful rewordings raise no alarm."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.models import CheckStatus
from tests.check_helpers import M, S, status

# --- opposites -------------------------------------------------------------------------------

TOPK = (
    "For small-K TopK, FlyDSL achieves a 4.82x speedup over ATen with deterministic algorithms "
    "disabled, and 4.02x with them enabled."
)


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("TopK is 4.02x faster than ATen with deterministic algorithms enabled.", "4.02x"),
        ("With deterministic algorithms enabled, TopK is 4.02x faster than ATen.", "4.02x"),
        ("TopK is 4.02x faster when deterministic algorithms are not disabled.", "4.02x"),
        ("TopK is 4.82x faster than ATen with deterministic algorithms disabled.", "4.82x"),
        ("With deterministic algorithms disabled, TopK reaches 4.82x over ATen.", "4.82x"),
        ("FlyDSL reaches 4.82x over ATen with deterministic algorithms off.", "4.82x"),
        ("TopK is 4.02x faster than ATen.", "4.02x"),  # no condition said: as before
    ],
)
def test_a_figure_said_with_the_sources_condition_is_supported(explainer: str, text: str) -> None:
    assert status(explainer, TOPK, text) == S


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("TopK is 4.02x faster than ATen with deterministic algorithms disabled.", "4.02x"),
        ("With deterministic algorithms disabled, TopK is 4.02x faster than ATen.", "4.02x"),
        ("TopK is 4.02x faster when deterministic algorithms are not enabled.", "4.02x"),
        ("TopK is 4.82x faster than ATen with deterministic algorithms enabled.", "4.82x"),
    ],
)
def test_a_figure_said_with_the_opposite_condition_is_misattached(
    explainer: str, text: str
) -> None:
    assert status(explainer, TOPK, text) == M
    reason = check_explainer(explainer, TOPK).numbers[0].reason or ""
    assert "opposite" in reason


def test_an_opposite_only_counts_in_the_figures_own_clause() -> None:
    source = "The forward pass took 19 ms, and the backward pass took 42 ms."
    assert status("The backward pass took 42 ms.", source, "42 ms") == S
    assert status("The forward pass took 42 ms.", source, "42 ms") == M
    # Both said in the explainer's clause, or both in the source's: nothing to tell apart.
    assert status("Forward and backward passes took 42 ms.", source, "42 ms") == S
    both = "Forward and backward passes took 42 ms in total."
    assert status("The forward pass took 42 ms.", both, "42 ms") == S
    # A source that says no condition for its figure backs any.
    assert status("The backward pass took 42 ms.", "One step took 42 ms.", "42 ms") == S


def test_a_pair_word_inside_another_word_is_no_opposite() -> None:
    source = "The backward-pass kernel runs 4.2x faster; the input layer is untouched."
    assert status("The backward-pass kernel is 4.2x faster.", source, "4.2x") == S
    assert status("The forward-pass kernel is 4.2x faster.", source, "4.2x") == M
    # "min" (minutes) and "max" (a hedge) are no pair words.
    assert status("A run takes 5 min at most.", "A run takes up to 5 min.", "5 min") == S


# --- what a count counts ---------------------------------------------------------------------

REQUESTS = (
    "The tuned configurations use a 256 x 256 output tile. Each request has a 256-token "
    "input and fixed 512-token output; concurrency ranges from 8 to 256."
)


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("Each request had a 512-token output.", "512"),
        ("Each request had a 256-token input.", "256"),
        ("Requests used a fixed 512-token output.", "512"),
        ("Outputs were fixed at 512 tokens.", "512"),
        ("The benchmark used 256-token inputs.", "256"),
    ],
)
def test_a_count_of_what_the_source_counts_is_supported(explainer: str, text: str) -> None:
    assert status(explainer, REQUESTS, text) == S


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        # A count before a noun phrase counts its last noun, of the words before it.
        ("Each request had 512 output tokens.", "512"),
        ("Each request had 256 input tokens and 512 output tokens.", "256"),
        ("Each request had 256 input tokens and 512 output tokens.", "512"),
        # A few words say the same as the source's: a prompt is the input, a reply or a
        # response (a completion) the output.
        ("Each request had a 512-token reply.", "512"),
        ("Each request had a 512-token response.", "512"),
        ("Each request had 512 completion tokens.", "512"),
        ("Each request had a 256-token prompt.", "256"),
        ("Each request had 256 prompt tokens.", "256"),
        ("The prompt was 256 tokens long.", "256"),
        # "N tokens of output" is "N output tokens".
        ("Each request produced 512 tokens of output.", "512"),
        ("Each request sent 256 tokens of input.", "256"),
    ],
)
def test_a_count_said_in_other_words_of_the_same_things_is_supported(
    explainer: str, text: str
) -> None:
    assert status(explainer, REQUESTS, text) == S


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("Each request had 512 prompt tokens.", "512"),
        ("Each request had 512 input tokens.", "512"),
        ("Each request had 256 output tokens.", "256"),  # no tokens in the output tile
        ("Each request had 256 reply tokens.", "256"),
        ("Each request had a 256-token response.", "256"),
        ("The prompt was 512 tokens long.", "512"),
        ("Each request produced 256 tokens of output.", "256"),  # not the output tile
        ("Each request sent 512 tokens of input.", "512"),
    ],
)
def test_a_count_before_a_noun_phrase_of_other_things_is_misattached(
    explainer: str, text: str
) -> None:
    assert status(explainer, REQUESTS, text) == M


def test_a_count_before_a_noun_phrase_reads_the_sources_phrase_too() -> None:
    source = "Each request has 256 input tokens and 512 output tokens."
    assert status("Each request had a 512-token output.", source, "512") == S
    assert status("Each request had a 512-token prompt.", source, "512") == M
    assert status("Each request had 512 reply tokens.", source, "512") == S


def test_a_shape_of_a_source_is_no_count() -> None:
    report = check_explainer("The tuned configurations use a 256 x 256 output tile.", REQUESTS)
    assert [n.status for n in report.numbers] == [S, S]


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("Each request had a 512-token prompt.", "512"),  # 512 tokens of output
        ("Each request had a 512-token input.", "512"),
        ("Each request had a 256-token output.", "256"),  # not the 256 x 256 output tile
    ],
)
def test_a_count_of_other_things_is_misattached(explainer: str, text: str) -> None:
    assert status(explainer, REQUESTS, text) == M


def test_a_count_keeps_the_words_of_its_compound() -> None:
    source = "Meta released a 30B-parameter model distilled from a larger one."
    explainer = "Meta released a 30-billion-parameter open-weight model."
    assert status(explainer, source, "30") == S
    # A hyphenated measure ("8-bit") is no count of the words after it.
    bits = "Four 8-bit radix passes find the threshold."
    assert status("It runs 8-bit inference.", bits, "8") == S


# --- names of a parenthesis of figures -------------------------------------------------------

FUSION = (
    "On DeepSeek-V3 shapes, the fusion recovered 89% of the overhead (5,996 -> 7,027 tok/s "
    "on 8xMI325X GPUs), and the colwise scales optimization delivered a 6.2x speedup per "
    "MoE layer."
)


@pytest.mark.parametrize(
    ("explainer", "text"),
    [
        ("The colwise scales kernel is 6.2x faster per MoE layer on DeepSeek-V3.", "6.2x"),
        ("The fusion recovered 89% of the overhead on MI325X GPUs.", "89%"),
        ("Throughput reached 7,027 tok/s on MI325X GPUs.", "7,027 tok/s"),
    ],
)
def test_a_name_goes_with_the_figures_of_its_parenthesis(explainer: str, text: str) -> None:
    assert status(explainer, FUSION, text) == S


def test_a_name_of_a_parenthesis_does_not_go_with_a_later_figure() -> None:
    explainer = "The colwise scales kernel is 6.2x faster per MoE layer on MI325X."
    assert status(explainer, FUSION, "6.2x") == M
    # Named outside the parenthesis too, or in a heading: the name is the sentence's.
    outside = FUSION.replace("per MoE layer.", "per MoE layer on MI325X.")
    assert status(explainer, outside, "6.2x") == S
    heading = "## Results on MI325X\n\n" + FUSION
    assert status(explainer, heading, "6.2x") == S


def test_a_parenthesis_after_a_noun_elaborates_the_noun() -> None:
    source = "The kernel (v2, 8 warps on MI300X) reaches a 6.2x speedup."
    assert status("The kernel reaches 6.2x on MI300X.", source, "6.2x") == S


# --- "over" before a count ---------------------------------------------------------------------

GROUPED = "Across all 24 grouped-GEMM cases, FlyDSL reaches 1.20x over Triton and 1.95x over ATen."


@pytest.mark.parametrize(
    "explainer",
    [
        "FlyDSL is 1.95x faster than ATen over 24 cases.",
        "FlyDSL reaches 1.20x over Triton over all 24 grouped-GEMM cases.",
        "FlyDSL reaches 1.20x over Triton across 24 cases.",
    ],
)
def test_over_a_count_after_a_measured_figure_reads_across(explainer: str) -> None:
    assert status(explainer, GROUPED, "24") == S


@pytest.mark.parametrize(
    "explainer",
    [
        "FlyDSL was tested on over 24 cases.",  # no measured figure: "more than 24"
        "FlyDSL is 1.95x faster than ATen on over 24 cases.",  # after a preposition
        "FlyDSL is 1.95x faster than ATen in more than 24 cases.",
    ],
)
def test_over_a_count_otherwise_reads_more_than(explainer: str) -> None:
    assert status(explainer, GROUPED, "24") == CheckStatus.UNSUPPORTED


def test_over_reads_across_only_where_the_source_writes_it_so() -> None:
    plain = "FlyDSL reaches 1.20x over Triton and 1.95x over ATen. The suite has 24 cases."
    assert status("FlyDSL is 1.95x faster than ATen over 24 cases.", plain, "24") != S


# --- a leading phrase ----------------------------------------------------------------------------

HARDWARE = "The kernel reaches 6.2x on MI355X and 4.1x on MI300X; FP8 adds 13.4% on MI300X."


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        ("On MI355X, the kernel reaches 6.2x.", "6.2x", S),
        ("On MI300X GPUs, the kernel reaches 4.1x, a good result.", "4.1x", S),
        ("On MI300X GPUs, the kernel reaches 6.2x.", "6.2x", M),
        ("With MI300X, the kernel is 4.1x faster and FP8 adds 13.4%.", "13.4%", S),
        # The phrase reaches over commas to the clause's end, not past a semicolon.
        ("On MI300X, the kernel reaches 4.1x, and 6.2x at best.", "6.2x", M),
        ("On MI300X, the kernel reaches 4.1x; it reaches 6.2x elsewhere.", "6.2x", S),
        # A phrase leading the clause after a semicolon or colon names its figures too.
        ("The kernel reaches 6.2x on MI355X; on MI300X, FP8 adds 13.4%.", "13.4%", S),
        ("The kernel is fast; on MI355X, FP8 adds 13.4%.", "13.4%", M),
        ("Two results: on MI355X, FP8 adds 13.4%.", "13.4%", M),
    ],
)
def test_a_leading_phrase_names_what_its_clauses_figures_are_of(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, HARDWARE, text) == expected


THROUGHPUT = (
    "It raises throughput: about 16% more requests per second and about 12% more output "
    "tokens per second on identical GPUs."
)


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        ("Requests per second rose about 16%.", "16%", S),
        ("Output tokens per second rose about 12%.", "12%", S),
        ("Throughput rose about 12%.", "12%", S),  # the clause's subject: both figures'
        # All the explainer's words are the other figure's, and the source says this
        # one of output tokens.
        ("Requests per second rose about 12%.", "12%", M),
        ("Output tokens per second rose about 16%.", "16%", M),
    ],
)
def test_a_figure_said_in_plain_words_of_the_figure_beside_it_is_misattached(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, THROUGHPUT, text) == expected


# --- with and without -----------------------------------------------------------------------------

GRAPHS = "Decode reaches 1,850 tok/s with CUDA graphs and 1,210 tok/s without them."


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        ("Decode reaches 1,850 tok/s with CUDA graphs.", "1,850 tok/s", S),
        ("Without CUDA graphs, decode reaches 1,210 tok/s.", "1,210 tok/s", S),
        ("Decode reaches 1,210 tok/s when not using CUDA graphs.", "1,210 tok/s", S),
        ("Decode reaches 1,850 tok/s using CUDA graphs.", "1,850 tok/s", S),
        ("Decode reaches 1,850 tok/s.", "1,850 tok/s", S),  # no condition said
        ("Decode reaches 1,850 tok/s with batching.", "1,850 tok/s", S),  # another thing
        ("Decode reaches 1,210 tok/s with CUDA graphs.", "1,210 tok/s", M),
        ("Without CUDA graphs, decode reaches 1,850 tok/s.", "1,850 tok/s", M),
        ("Decode reaches 1,850 tok/s when not using CUDA graphs.", "1,850 tok/s", M),
        ("Decode reaches 1,850 tok/s with no CUDA graphs.", "1,850 tok/s", M),
    ],
)
def test_with_and_without_the_same_thing_are_opposite(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, GRAPHS, text) == expected


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        # "with deterministic algorithms disabled" is "without" them: the state word after
        # the object of "with" says which.
        ("Without deterministic algorithms, TopK is 4.82x faster than ATen.", "4.82x", S),
        ("TopK is 4.82x faster than ATen when run without deterministic algorithms.", "4.82x", S),
        ("TopK is 4.02x faster than ATen with deterministic algorithms.", "4.02x", S),
        ("With deterministic algorithms, TopK is 4.82x faster than ATen.", "4.82x", M),
        ("TopK is 4.02x faster than ATen without deterministic algorithms.", "4.02x", M),
    ],
)
def test_with_a_thing_disabled_is_without_it(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, TOPK, text) == expected
    off = TOPK.replace("disabled, and 4.02x with them enabled", "off, and 4.02x with them on")
    assert status(explainer, off, text) == expected


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        # The source's "4.02x with them enabled": "them" are the deterministic algorithms
        # of the "with" before it, not whatever an explainer's "without" is said of.
        ("TopK is 4.02x faster than ATen without any code changes.", "4.02x", S),
        ("TopK gets 4.02x over ATen without touching model code.", "4.02x", S),
        ("TopK is 4.02x faster than ATen without deterministic algorithms.", "4.02x", M),
        ("Without determinism, TopK reaches 4.82x; with it, 4.02x.", "4.02x", S),
    ],
)
def test_a_pronoun_after_with_is_the_thing_of_the_with_before(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, TOPK, text) == expected


@pytest.mark.parametrize(
    ("explainer", "text", "expected"),
    [
        # A condition leading the clause after a semicolon is said of its figures, as one
        # leading the sentence is of the first.
        ("TopK reaches 4.02x; with determinism disabled, 4.82x.", "4.82x", S),
        ("TopK reaches 4.02x; with determinism, 4.82x.", "4.82x", M),
        ("Without determinism, TopK reaches 4.02x; with it, 4.82x.", "4.82x", M),
        ("Without determinism, TopK reaches 4.82x; with it, 4.02x.", "4.02x", S),
    ],
)
def test_a_condition_leading_a_clause_after_a_semicolon_is_its_figures(
    explainer: str, text: str, expected: CheckStatus
) -> None:
    assert status(explainer, TOPK, text) == expected


def test_with_and_without_the_same_thing_in_one_source_clause_leave_it_open() -> None:
    source = "Decode reaches 1,850 tok/s with and without CUDA graphs."
    assert status("Without CUDA graphs, decode reaches 1,850 tok/s.", source, "1,850 tok/s") == S


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        ("TopK is 4.02x faster when deterministic algorithms have not been enabled.", M),
        ("TopK is 4.02x faster without enabling deterministic algorithms.", M),
        ("TopK is 4.82x faster without enabling deterministic algorithms.", S),
        ("TopK is 4.02x faster when deterministic algorithms are not always enabled.", S),
    ],
)
def test_a_negation_a_word_or_two_before_turns_a_condition(
    explainer: str, expected: CheckStatus
) -> None:
    text = "4.02x" if "4.02x" in explainer else "4.82x"
    assert status(explainer, TOPK, text) == expected


def test_a_leading_phrase_ends_where_the_subject_starts() -> None:
    # No comma after "On MoE shapes": "this data movement" is the subject, and the 8 bits
    # of "the 8-bit math" are not said of MoE shapes.
    source = "FP8 training quantizes these operations from 16 bits to 8 bits."
    explainer = "On MoE shapes this data movement, not the 8-bit math, dominated."
    assert status(explainer, source + " MoE shapes are large.", "8") == S


# --- a heading's scope ----------------------------------------------------------------------

# A heading that scopes its section to a platform ("... for RDNA3") scopes its figures: a
# figure said of the heading's subject, which the source writes in another section too,
# must name the scope ("Flex attention is roughly 2-8x faster" of the RDNA3 section).
SCOPED = (
    "## Kernels\n\nFooBar runs on the MI300X.\n\n### FooBar tuning for RDNA3\n\n"
    "The result is a 3x lower latency.\n"
)


def test_a_figure_of_a_scoped_heading_said_without_the_scope_is_misattached() -> None:
    assert status("FooBar is 3x faster.", SCOPED, "3x") == M
    assert status("On RDNA3, FooBar is 3x faster.", SCOPED, "3x") == S
    assert status("The result is a 3x lower latency.", SCOPED, "3x") == S  # no subject
    # The subject in that section alone: the scope is no other thing's.
    alone = SCOPED.replace("FooBar runs", "It runs")
    assert status("FooBar is 3x faster.", alone, "3x") == S
    # A heading of no scope ("FooBar tuning"), or "for" and a plain word.
    for heading in ("FooBar tuning", "FooBar tuning for speed"):
        assert (
            status("FooBar is 3x faster.", SCOPED.replace("FooBar tuning for RDNA3", heading), "3x")
            == S
        )
