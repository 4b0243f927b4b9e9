"""check: identifiers, versions and model names, matched verbatim or as their series."""

from __future__ import annotations

import pytest

from service.models import CheckStatus
from tests.check_helpers import M, S, U, status

# --- identifiers and versions ---------------------------------------------------------------------

IDS = (
    "We used Llama-3.1-8B-Instruct on one MI355X (gfx950, TP=1) with PyTorch 2.14 "
    "and AOTriton 0.14.2b. The host ran ROCm 6.4 and the 0.3.x series."
)


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("It ran on an mi355x.", "mi355x", S),
        ("It ran on a GFX950 part.", "GFX950", S),
        ("It used Llama 3.1 8B Instruct.", "Llama 3.1 8B Instruct", S),
        ("It used Llama-3.1-8B.", "Llama-3.1-8B", S),
        ("It used Llama-3.2-8B.", "Llama-3.2-8B", U),
        ("It ran on an MI300X.", "MI300X", U),
        ("It ran with TP=1.", "TP=1", S),
        ("It ran with TP=2.", "TP=2", U),
        ("It needs AOTriton 0.14.2b.", "0.14.2b", S),
        ("It needs AOTriton 0.14.2.", "0.14.2", U),
        ("It needs the v0.3.x series.", "v0.3.x", S),
        ("It needs the 0.4.x series.", "0.4.x", U),
        ("It needs PyTorch 2.14.", "2.14", S),
        ("It needs ROCm 2.14.", "2.14", M),  # a version given for another product
        ("It needs TensorFlow 2.14.", "2.14", M),  # ... or for one the source never names
        ("It needs JAX 2.14 too.", "2.14", M),
        ("It needs TensorFlow 2.15.", "2.15", U),
        ("Since 2.14, it is faster.", "2.14", S),  # no product: a sentence's first word
    ],
)
def test_identifiers_and_versions_match_verbatim(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, IDS, written) == expected


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("It needs FlyDSL 0.3 or later.", "0.3", S),  # the 0.3.x series
        ("It needs PyTorch 2.14.", "2.14", S),  # 2.14.0
        ("It needs PyTorch 2.14.0.", "2.14.0", S),
        ("It needs CUDA 12.6.0.", "12.6.0", S),  # 12.6
        ("It needs FlyDSL 0.3.1.", "0.3.1", U),
        ("It needs PyTorch 2.1.", "2.1", U),
        ("It needs FlyDSL 0.30.", "0.30", U),
        ("It needs CUDA 12.6.1.", "12.6.1", U),
        ("It needs ROCm 2.14.", "2.14", M),
    ],
)
def test_a_release_matches_with_zeros_after_it_or_as_its_series(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    source = (
        "Install FlyDSL from the supported 0.3.x series. PyTorch 2.14.0 ships it, with CUDA 12.6."
    )
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("It supports CUDA 12.6, 13.0 and 13.2.", "13.2", S),
        ("It supports ROCm 7.2 and 7.14.", "7.14", S),
        # The clause names CUDA, but gives 7.14 for ROCm (it was supported).
        ("It supports CUDA 7.14.", "7.14", M),
        ("It supports ROCm 13.2.", "13.2", M),
        ("TorchVision 2.14 is ABI stable.", "2.14", M),  # "TorchVision ... torch 2.14"
        ("TorchVision 0.29 ships.", "0.29", S),
    ],
)
def test_a_version_stands_after_its_own_product_in_the_source(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    source = (
        "PyTorch 2.14 supports CUDA 12.6, 13.0 and 13.2, and ROCm 7.2 and 7.14. TorchVision "
        "is now ABI stable w.r.t. torch 2.14, and torchvision 0.29 ships."
    )
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize("source_name", ["Llama3-8B", "Llama-3-8B", "Llama 3 8B", "llama3_8b"])
@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Llama 3 8B", S),  # a family and its generation, joined or apart: one model
        ("Llama-3 8B", S),
        ("Llama3-8B", S),
        ("Llama-3-8B", S),
        ("Llama 3 70B", U),  # another size
        ("Llama3-70B", U),
        ("Llama 3.1 8B", U),  # another generation
        ("Llama-38B", U),  # digits stay apart
        ("Llama 4 8B", U),
    ],
)
def test_a_model_name_may_join_its_family_and_generation(
    source_name: str, written: str, expected: CheckStatus
) -> None:
    source = f"FP8 training delivers a 13.4% throughput gain on {source_name} over BF16."
    assert status(f"On {written} it trains faster.", source, written) == expected


def test_a_figure_bound_to_a_model_written_the_other_way_is_supported() -> None:
    source = (
        "FP8 training delivers a 13.4% throughput gain over BF16 on Llama3-8B. On "
        "DeepSeek-V3 671B the fused kernel recovers 89% of the overhead."
    )
    assert status("Llama 3 8B trains 13.4% faster with FP8.", source, "13.4%") == S
    assert status("DeepSeek-V3 671B trains 13.4% faster with FP8.", source, "13.4%") == M
    assert status("Llama 3 8B recovers 89% of the overhead.", source, "89%") == M


def test_a_short_letter_run_does_not_join_a_number() -> None:
    # "A100" is a GPU; "a 100" an article and a count.
    assert status("It ran on an A100 today.", "It ran on a 100 node cluster.", "A100") == U


def test_a_model_name_does_not_match_another_size_of_its_family() -> None:
    source = "On Llama-3.1-70B, FlyDSL gains 1.5x. On Llama-3.1-8B, FlyDSL gains 1.9x."
    assert status("Llama-3.1-8B gains 1.9x with FlyDSL.", source, "1.9x") == S
    # The shorter form "Llama-3.1" of the name stood in "Llama-3.1-70B": it was supported.
    assert status("Llama-3.1-8B gains 1.5x with FlyDSL.", source, "1.5x") == M
    assert status("Llama-3 gains 1.5x with FlyDSL.", source, "Llama-3") == U


# --- a name written with a space more or less than the source writes it ------------------


@pytest.mark.parametrize(
    ("source", "explainer", "written", "expected"),
    [
        # The source's "GB300 NVL72" written joined, and its parts apart or hyphenated.
        ("Racks like NVIDIA GB300 NVL72 need care.", "The GB300NVL72 needs care.", "GB300NVL72", S),
        ("Racks like NVIDIA GB300 NVL72 need care.", "The GB 300 needs care.", "GB 300", S),
        ("Racks like NVIDIA GB300 NVL72 need care.", "The GB200NVL72 needs care.", "GB200NVL72", U),
        ("Racks like NVIDIA GB300 NVL72 need care.", "The GB300NVL36 needs care.", "GB300NVL36", U),
        # "GB 200" is no name the source writes: the figure 200, which it never gives.
        ("Racks like NVIDIA GB300 NVL72 need care.", "The GB 200 needs care.", "200", U),
        # The source's "GB300NVL72" written with spaces; its "GB 300" written joined.
        (
            "Racks like NVIDIA GB300NVL72 need care.",
            "The GB300 NVL72 needs care.",
            "GB300 NVL72",
            S,
        ),
        (
            "Racks like NVIDIA GB300NVL72 need care.",
            "The GB300-NVL72 needs care.",
            "GB300-NVL72",
            S,
        ),
        ("Racks like NVIDIA GB 300 need care.", "The GB300 needs care.", "GB300", S),
        ("Racks like NVIDIA GB 300 need care.", "The GB200 needs care.", "GB200", U),
        # "GB" after a figure is its unit, no name: "80 GB 300 ..." is 80 GB, then 300.
        ("The GB300 has 80 GB and 200 racks.", "The GB300 has 80 GB 300 racks.", "300", U),
        ("The H100 has 80 GB 300 watts.", "The GB300 is new.", "GB300", U),
    ],
)
def test_a_name_spaced_otherwise_than_the_source_is_the_same_name(
    source: str, explainer: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected
