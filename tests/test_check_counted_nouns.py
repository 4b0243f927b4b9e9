"""check: the noun a count counts, right after it ("1.2 million users", "512 GPUs", "8
experts"), is the figure's own: a source figure that counts other things is another
figure, whatever other noun the two sentences share ("model"). A capitalised plural of a
name ("GPUs") counts as a plain plural does, and so does a German noun spelt as its
English cognate ("Parameter", "Experten": beyond.GERMAN_COUNTED); a German noun of
another spelling ("Nutzer") is compared as before, by its letters."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.check.beyond import GERMAN_COUNTED
from service.models import CheckStatus
from tests.check_helpers import M, S, U, status, verdict

USERS = "The model serves 1.2 million users."
BOTH = "The model serves 1.2 million users and has 3 billion parameters."
MOE = "The model has 8 layers and 64 experts."
NODES = "The run used 512 nodes with 8 GPUs each."


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # "model" near both figures, but the source's 1.2 million counts users.
        ("The model has 1.2 million parameters.", USERS, "1.2 million", M),
        ("The model serves 1.2 million users.", USERS, "1.2 million", S),
        ("The model has 3 billion parameters.", BOTH, "3 billion", S),
        ("The model has 3 billion users.", BOTH, "3 billion", M),
        ("The model routes to 8 experts.", MOE, "8", M),
        ("The model routes to 64 experts.", MOE, "64", S),
        # A name's plural: the source's 512 counts nodes, its GPUs are 8 per node.
        ("The run used 512 GPUs.", NODES, "512", M),
        ("The run used 512 nodes.", NODES, "512", S),
        ("The run used 512 GPUs.", "The run used 512 AMD GPUs.", "512", S),
        # German cognates: the same stems.
        ("Das Modell hat 1,2 Millionen Parameter.", USERS, "1,2 Millionen", M),
        ("Das Modell hat 3 Milliarden Parameter.", BOTH, "3 Milliarden", S),
        (
            "Das Modell hat 1,2 Millionen Parameter.",
            "The model has 1.2M parameters.",
            "1,2 Millionen",
            S,
        ),
        ("Das Modell hat 8 Experten.", MOE, "8", M),
        ("Das Modell hat 64 Experten.", MOE, "64", S),
        ("Das Modell nutzt 512 GPUs.", "The model was trained on 512 nodes.", "512", M),
        ("Das Modell liest 512 Token.", "The prompt has 512 tokens.", "512", S),
        ("Das Modell hat 4 Milliarden Parameter.", BOTH, "4 Milliarden", U),
    ],
)
def test_a_count_counts_the_noun_right_after_it(
    explainer: str, source: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # A count word counts the noun right after it, as digits do (a strict xfail of
        # test_check_known_wrong: any 8 of the source backed "eight experts").
        ("The model has eight experts.", MOE, "eight", M),
        ("Das Modell hat acht Experten.", MOE, "acht", M),
        ("The run used eight nodes.", NODES, "eight", M),
        ("The model has eight layers.", MOE, "eight", S),
        ("The model has eight experts.", "The model has 8 experts per layer.", "eight", S),
        ("The model has eight experts.", "Each of the 8 experts is small.", "eight", S),
        ("The model has eight experts.", "It has 8 layers. It has 8 experts.", "eight", S),
        ("The run used eight GPUs.", NODES, "eight", S),
        ("The team had three contributors.", "It has 487 commits from 3 contributors.", "three", S),
        ("We trained on eight GPUs.", "We trained on a single 8x H100 node.", "eight", S),
        # A phrase of more words, or none: its value alone, as before.
        ("The model has eight expert layers.", MOE, "eight", S),
        ("The model has eight.", MOE, "eight", S),
    ],
)
def test_a_count_word_counts_the_noun_right_after_it(
    explainer: str, source: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected


def test_a_count_word_says_what_the_source_counts_and_stays_no_claim_without_its_value() -> None:
    found = verdict("The model has eight experts.", MOE, "eight")
    assert found.reason == 'the source counts layers there, not "experts"'
    assert check_explainer("The model has nine experts.", MOE).numbers == []


# The source writes the count word too, of other things (the vLLM hardware-agnostic
# explainer's "across three recent models" against a post of "four design principles").
PRINCIPLES = "We evaluated three models. The method rests on four design principles."


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # The word's one place counts principles, the source's models are three: no count
        # of models, with a word before the noun or none (its own word was enough before).
        ("It was tested across four recent models.", PRINCIPLES, "four", M),
        ("It was tested across four models.", PRINCIPLES, "four", M),
        ("It ran twelve models.", "It ran 10 models on twelve design principles.", "twelve", M),
        # The source counts the noun nowhere: the explainer may count what it names
        # itself ("TorchAO and TorchTitan, two libraries"; the fp8 case's llm explainer).
        ("It was tested across four model families.", PRINCIPLES, "four", S),
        ("It ran twelve models.", "It rests on twelve design principles.", "twelve", S),
        ("It uses A and B, two libraries.", "A had two compounding problems.", "two", S),
        # The noun the source's word counts, as written or another form of it.
        ("It follows four design principles.", PRINCIPLES, "four", S),
        ("It follows four principles.", PRINCIPLES, "four", S),
        ("It was tested across four models.", "We evaluated four models.", "four", S),
        ("It was tested across four models.", "We evaluated four new models.", "four", S),
        ("It was tested across four models.", "It has four decoder-only models.", "four", S),
        ("It was tested across four models.", "It is a four-model ensemble.", "four", S),
        ("It tests one model.", "It has one of the best designs. One test runs.", "one", S),
        # The noun at another place of the value: its digits, another word of it.
        ("It was tested across four models.", f"{PRINCIPLES} We ran 4 models.", "four", S),
        ("It ran twelve models.", "It has twelve principles. It ran a dozen models.", "twelve", S),
        # A place of the word that counts no clear noun may count the noun: as before.
        ("It ran four models.", "It has four design principles. Four of them run.", "four", S),
        ("It ran four models.", "It has four design principles. The four differ.", "four", S),
        ("It ran four models.", "It has four design principles; 4 of them run.", "four", S),
        # A generic noun, either side's, may be any count ("four ways" of the principles).
        ("It names four ways to port a model.", PRINCIPLES, "four", S),
        ("It ran four models.", "The run has four parts.", "four", S),
        ("It ran four models.", "It ran 3 models. It has four entry points.", "four", M),
        # A word of the explainer's phrase the source's noun: the same things, named shorter.
        ("The model has four expert layers.", "The model has four experts.", "four", S),
        # A name's plural may abbreviate the source's words ("eight LLMs" of "eight open
        # models"): left as before.
        ("It ran on four GPUs.", "It ran on four nodes.", "four", S),
    ],
)
def test_a_count_word_the_source_writes_too_counts_the_noun_it_counts(
    explainer: str, source: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected


def test_a_count_word_of_other_things_names_them() -> None:
    found = verdict("It was tested across four recent models.", PRINCIPLES, "four")
    assert found.reason == 'the source counts design principles there, not "models"'
    found = verdict("It has three models.", "Two models. Three additions give control.", "three")
    assert found.reason == 'the source counts additions there, not "models"'


def test_the_reason_names_what_the_source_counts() -> None:
    found = verdict("Das Modell hat 1,2 Millionen Parameter.", USERS, "1,2 Millionen")
    assert found.reason == 'the source counts users there, not "parameter"'
    found = verdict("The run used 512 GPUs.", NODES, "512")
    assert found.reason == 'the source counts nodes there, not "gpus"'


def test_a_german_noun_of_another_spelling_is_no_counted_noun() -> None:
    # "Nutzer" is not "users" by its letters: no counted noun, a noun of the figure as
    # before (a false alarm for review, named so), not "the source counts users".
    assert "nutzer" not in GERMAN_COUNTED
    found = verdict("Es sind 1,2 Millionen Nutzer.", USERS, "1,2 Millionen")
    assert found.status == M
    assert found.reason == "the source gives it for other things (nutzer not there)"


def test_a_capitalised_word_in_a_longer_phrase_is_no_counted_noun() -> None:
    # "8 Experten pro Schicht": a phrase of more words than the noun; what the count
    # counts is left to the nouns near it ("experten" finds "experts").
    assert status("Das Modell hat 64 Experten pro Schicht.", MOE, "64") == S


def test_the_source_noun_may_follow_a_product_name() -> None:
    # Five words of the source's phrase: its noun after "AMD Instinct MI355X".
    assert status("The run used 8 GPUs.", "The run used 8 AMD Instinct MI355X GPUs.", "8") == S
    assert status("The run used 8 GPUs.", "The run used 8 AMD Instinct MI355X nodes.", "8") == M


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        # A count of a GPU model is a count of GPUs: its name with a digit, in the
        # plural or before no noun of its own (a figure, the clause's end).
        ("The run used 8 GPUs.", "The run used 8 H100s.", "8"),
        ("The run used 8 GPUs.", "The run used 8 NVIDIA H100s.", "8"),
        ("The run used 8 GPUs.", "The run used 8 AMD MI300Xs.", "8"),
        ("The run used 8 GPUs.", "Each node has 8 H100 80GB.", "8"),
        ("The run used 8 GPUs.", "The run used 8x A100 80GB GPUs.", "8"),
        ("The run used 8 GPUs.", "The run used 8 RTX 4090s.", "8"),
        ("Der Lauf nutzte 8 GPUs.", "The run used 8 H100s.", "8"),
        ("The cluster has 16 GPUs.", "The cluster has 16 Blackwells.", "16"),
        ("The run used 4 CPUs.", "The run used 4 Intel Xeons.", "4"),
        ("The run used 4 CPUs.", "The run used 4 Graviton3s.", "4"),
        ("The run used 8 GPUs.", "The run used 8 L40S.", "8"),
        # A name of no family known says no kind: either is taken.
        ("The run used 8 NPUs.", "The run used 8 Ascend 910Bs.", "8"),
        # A device noun after the model's name is the model's: "MI355X accelerators".
        ("The run used 8 GPUs.", "The run used 8 AMD Instinct MI355X accelerators.", "8"),
        ("The run used 512 GPUs.", "The run used 512 MI300X accelerators.", "512"),
        ("The run used 4 CPUs.", "The run used 4 AMD EPYC 9654 processors.", "4"),
        ("The run used 8 GPUs.", "The run used 8 NVIDIA H100 cards.", "8"),
        # "8x H100 node": a node of 8 H100s (misattached since 77bfed2, "counts h100 node").
        ("We trained on 8 GPUs.", "We trained on a single 8x H100 node.", "8"),
        ("## Training on 8 GPUs", "## Setup\n\nWe trained on one 8x MI300X server.", "8"),
        ("The run used 4 TPUs.", "The run used 4 TPU v5e chips.", "4"),
        # An abbreviation's plural the source does not write may stand for its words.
        ("It compared 8 LLMs.", "It compared 8 open models.", "8"),
        ("The team merged 40 PRs.", "The team merged 40 pull requests.", "40"),
        ("The team fixed 30 CVEs.", "The team fixed 30 vulnerabilities.", "30"),
    ],
)
def test_a_product_or_an_abbreviation_backs_the_plain_plural(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == S


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        # A product with a noun of its own counts that noun: nodes, not GPUs.
        ("The run used 8 GPUs.", "The run used 8 H100 nodes.", "8"),
        ("The run used 8 GPUs.", "The run used 8 AMD Instinct MI355X nodes.", "8"),
        # A family's name says its kind: an H100 is no CPU, a Xeon no GPU, a Llama no
        # hardware (passed: a name alone said no kind).
        ("The run used 8 CPUs.", "The run used 8 H100s.", "8"),
        ("The run used 8 TPUs.", "The run used 8 NVIDIA H100s.", "8"),
        ("The run used 8 CPUs.", "The run used 8 AMD MI300Xs.", "8"),
        ("The run used 8 CPUs.", "The run used 8 RTX 4090s.", "8"),
        ("The run used 8 GPUs.", "The run used 8 Intel Xeon 8480s.", "8"),
        ("The run used 4 GPUs.", "The run used 4 Graviton3s.", "4"),
        ("The run used 8 GPUs.", "Results for 8 Llama3-8B.", "8"),
        ("The run used 4 GPUs.", "It served 4 Qwen2.5-7B replicas.", "4"),
        # The source writes the name and counts other things with the figure.
        ("The suite has 8 LLMs.", "The suite has 8 tasks for LLMs.", "8"),
        ("The run used 512 GPUs.", "The run used 512 nodes. Each holds 8 GPUs.", "512"),
    ],
)
def test_a_product_or_a_name_counting_other_things_stays_misattached(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == M


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # The source's noun is read past a model's name (words with capitals, the last
        # with a digit or two capitals), not past plain words: three of them, as before.
        ("The run used 8 GPUs.", "The run used 8 AMD Instinct MI355X GPUs.", "8", S),
        ("The run used 8 GPUs.", "The run used 8 NVIDIA H100 SXM GPUs.", "8", S),
        ("The cluster has 8 GPUs.", "The cluster has 8 nodes hosting H100 GPUs.", "8", M),
        ("The cluster has 8 GPUs.", "The cluster has 8 servers hosting NVIDIA H100 GPUs.", "8", M),
        (
            "The project has 487 commits.",
            "The project has 487 contributors pushing daily small commits.",
            "487",
            M,
        ),
    ],
)
def test_the_source_noun_is_read_past_a_name_not_past_plain_words(
    explainer: str, source: str, written: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [("The run used 2 CPUs.", S), ("The run used 2 GPUs.", M)],
)
def test_a_model_counts_the_kind_its_paragraph_says_it_is(
    explainer: str, expected: CheckStatus
) -> None:
    # "Xeon CPUs" in the paragraph: "2 Xeons" counts CPUs, no GPUs.
    source = "The run used 2 Xeons. The Xeon CPUs fed the data loaders."
    assert status(explainer, source, "2") == expected

    # The model's name before the point that ends its sentence: "H100s." is "H100s".
    source = "The run used 8 H100s. The H100 GPUs were cool."
    assert status("The run used 8 GPUs.", source, "8") == S
    assert status("The run used 8 CPUs.", source, "8") == M


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        # The head of the source's phrase is what it counts, not a word before it that
        # says of what: GPU nodes, GPU hours are no GPUs (all four passed: "gpu" found
        # "gpus" anywhere in the phrase).
        ("The run used 512 GPUs.", "The run used 512 GPU nodes.", "512"),
        ("The run used 8 GPUs.", "The run took 8 GPU-hours.", "8"),
        ("The run used 8 GPUs.", "The run took 8 H100 GPU hours.", "8"),
        ("The team has 40 engineers.", "The team has 40 engineering managers.", "40"),
        # A measure is no count: 8 hours, 8 ms "on GPUs" (passed: a bare count matches a
        # figure of any unit, and "GPUs" stood near it).
        ("The run used 8 GPUs.", "Training took 8 hours on GPUs.", "8"),
        ("The run used 8 GPUs.", "Each step took 8 ms on GPUs.", "8"),
        # (The check dump's one change: the FlyDSL explainer against the PyTorch 2.14 post.)
        (
            "It keeps one scale per 32 values.",
            "It narrows them to 32-bit integers when the value fits.",
            "32",
        ),
        # A device noun says its kind: processors are CPUs, accelerators no CPUs.
        ("The run used 8 GPUs.", "The run used 8 AMD EPYC 9654 processors.", "8"),
        ("The run used 8 GPUs.", "The run used 8 Xeon Platinum 8480 processors.", "8"),
        ("The run used 8 CPUs.", "The run used 8 AMD Instinct MI300X accelerators.", "8"),
        # A system's line: eight DGX H100s are 64 GPUs; a GB200 NVL72 is a rack of 72.
        ("The run used 8 GPUs.", "We trained on 8 DGX H100s.", "8"),
        ("The run used 4 GPUs.", "We trained on 4 GB200 NVL72.", "4"),
        # Past a superlative compound (and an acronym after it), the noun counted is
        # still read.
        ("The set is 50 GPUs.", "The set is the 50 most-used models.", "50"),
        (
            "The target set is the 10,000 adapters.",
            "13 adapters cover 7,960 of the 10,000 most-downloaded HF embedding models.",
            "10,000",
        ),
    ],
)
def test_a_count_of_other_things_beside_the_noun_is_misattached(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == M


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        # Their faithful twins stay supported.
        ("The run used 512 GPU nodes.", "The run used 512 GPU nodes.", "512"),
        ("The run took 8 GPU-hours.", "The run took 8 GPU-hours.", "8"),
        ("The run used 8 GPUs.", "The run used 8 MI300X GPUs.", "8"),
        ("The run used 4 TPUs.", "The run used 4 TPU v5e chips.", "4"),
        ("The run used 8 CPUs.", "The run used 8 AMD EPYC 9654 processors.", "8"),
        ("The run used 8 GPUs.", "The run used 8 AMD Instinct MI300X accelerators.", "8"),
        ("The run used 8 NPUs.", "The run used 8 Gaudi3 accelerators.", "8"),
        ("We trained on 8 GPUs.", "We trained on a single 8x H100 node.", "8"),
        # A superlative compound says which models, not what is counted (the day-one
        # enablement post: "7,960 of the 10,000 most-downloaded HF embedding models").
        (
            "The adapters covered 7,960 of the 10,000 models.",
            "13 adapters cover 7,960 of the 10,000 most-downloaded HF embedding models.",
            "10,000",
        ),
        ("The set is 50 models.", "The set is the 50 least-used models.", "50"),
    ],
)
def test_a_count_of_the_noun_itself_stays_supported(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == S


def test_the_reason_names_the_measure() -> None:
    found = verdict("The run used 8 GPUs.", "Each step took 8 ms on GPUs.", "8")
    assert found.reason == 'the source measures 8 ms there, no count of "gpus"'
    found = verdict("The run used 512 GPUs.", "The run used 512 GPU nodes.", "512")
    assert found.reason == 'the source counts gpu nodes there, not "gpus"'
