"""check: a count word after a sequence's label ("Day two", "Round two") is a place among
the label's things, no count of the word after it: "Day two closes with 3 talks" counts
no "closes" (a verb), on either side of the check (word_counts.sequence_label)."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S, U, status, verdict

# The source counts "close" with three ("Three talks close"): "closes" read as what the
# explainer's "two" counts, its "Day two" was misattached to the source's own "Day two".
DAYS = "Three talks close day one. Day two ends with 3 panels."


def test_a_verb_after_day_two_is_no_counted_noun() -> None:
    assert status("Day two closes with 3 panels.", DAYS, "two") == S  # was misattached


def test_the_place_is_said_of_the_labels_things() -> None:
    # The source counts rounds (three), and its two counts experts: no round two.
    source = "Training ran three rounds. Two experts were added at the end."
    v = verdict("Round two adds 2 experts.", source, "two")
    assert (v.status, v.reason) == (M, 'the source counts experts there, not "rounds"')
    # (Was supported: "adds", the explainer's noun, no source count counts.)
    for backed in ("In round two, 2 experts were added.", "Round two adds two experts."):
        assert (
            status("Round two adds 2 experts.", "Training ran three rounds. " + backed, "two") == S
        )


def test_a_source_place_counts_no_word_after_it() -> None:
    # The source's "Day two" numbers days; its reason named "closes".
    source = "Day two closes with 3 talks. Three tracks run in parallel."
    v = verdict("The summit has two tracks.", source, "two")
    assert (v.status, v.reason) == (M, 'the source numbers days there, not "tracks"')


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        ("Day two closes with 3 talks.", "On day two, 3 talks close the summit."),
        ("Day 2 closes with 3 talks.", "On day 2, 3 talks close the summit."),
        ("Phase two trains 3 models.", "Phase two trains 3 models. Four models came first."),
        ("Season two has 8 episodes.", "The show ran two seasons of 8 episodes."),
        ("Day two closes with 3 talks.", "The summit runs two days. The last has 3 talks."),
    ],
)
def test_places_the_source_backs_stay_supported(explainer: str, source: str) -> None:
    assert {n.status for n in check_explainer(explainer, source).numbers} == {S}


def test_a_count_right_after_its_noun_is_read_as_before() -> None:
    # No label before it: the count counts the noun after it, as it did.
    source = "The recipe has two layers. Three experts were added."
    assert status("The model adds two experts.", source, "two") == M


@pytest.mark.parametrize("before", ["Each", "Every", "In a", "Per"])
def test_a_label_after_a_determiner_is_a_noun_and_the_figure_a_count(before: str) -> None:
    # "Each round two experts are added": two counts experts, as without the label.
    source = "Two layers are added per round. Four experts are used."
    explainer = f"{before} round two experts are added."
    assert status(explainer, source, "two") == M


@pytest.mark.parametrize(
    ("source", "backing"),
    [
        # The source names the place by its ordinal: that sentence backs it, not its "two"
        # of other things.
        (
            "The second day closes with 3 talks. Two tracks run in parallel.",
            "The second day closes with 3 talks.",
        ),
        (
            "The summit has two tracks. On the 2nd day, 3 talks close it.",
            "On the 2nd day, 3 talks close it.",
        ),
        (
            "Two tracks run. On day two, 3 talks close the summit.",
            "On day two, 3 talks close the summit.",
        ),
        (
            "Two tracks run. On Day 2, 3 talks close the summit.",
            "On Day 2, 3 talks close the summit.",
        ),
    ],
)
def test_a_place_is_backed_where_the_source_names_it(source: str, backing: str) -> None:
    v = verdict("Day two closes with 3 talks.", source, "two")
    assert (v.status, v.source) == (S, backing)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        # Its "two" counts other things and no day two is named: was supported.
        (
            "Two tracks run. Day 3 closes with 3 talks.",
            'the source counts tracks there, not "days"',
        ),
        (
            "The team has two leads. The last day has 3 talks.",
            'the source counts leads there, not "days"',
        ),
        (
            "It has 2 tracks. The last day has 3 talks.",
            'the source counts tracks there, not "days"',
        ),
        ("In 2 of them, the last day has 3 talks.", "the source names no day two"),
        (
            "Two tracks run. The third day has 3 talks.",
            'the source counts tracks there, not "days"',
        ),
    ],
)
def test_an_unrelated_two_backs_no_day_two(source: str, reason: str) -> None:
    v = verdict("Day two closes with 3 talks.", source, "two")
    assert (v.status, v.reason) == (M, reason)


@pytest.mark.parametrize(
    ("explainer", "number", "source", "backing"),
    [
        # The digits name the place as the word does: the source's ordinal backs them.
        # Before, "Day 2" was misattached to "Two tracks run." ("closes, day not there")
        # or not found at all ("2nd", "third": no figure of the source).
        (
            "Day 2 closes with 3 talks.",
            "2",
            "The second day closes with 3 talks. Two tracks run in parallel.",
            "The second day closes with 3 talks.",
        ),
        (
            "Day 2 closes with 3 talks.",
            "2",
            "The summit has two tracks. On the 2nd day, 3 talks close it.",
            "On the 2nd day, 3 talks close it.",
        ),
        (
            "Step 3 runs the tests.",
            "3",
            "The third step runs the tests.",
            "The third step runs the tests.",
        ),
        (
            "In round 2, the team adds experts.",
            "2",
            "The team adds experts in the second round.",
            "The team adds experts in the second round.",
        ),
    ],
)
def test_digits_after_a_label_are_backed_where_the_source_names_the_place(
    explainer: str, number: str, source: str, backing: str
) -> None:
    v = verdict(explainer, source, number)
    assert (v.status, v.source) == (S, backing)


@pytest.mark.parametrize(
    "source",
    [
        # As for "Day two": the source's day two by its own words, or a span of days.
        "Day two closes with 3 talks.",
        "On day 2, 3 talks close the summit.",
        "The summit runs for two days. The last has 3 talks.",
    ],
)
def test_digits_after_a_label_stay_backed_as_before(source: str) -> None:
    assert status("Day 2 closes with 3 talks.", source, "2") == S


@pytest.mark.parametrize(
    "source",
    [
        # No such place named: still misattached to the source's count of other things.
        "Two tracks run. Day 3 closes with 3 talks.",
        "The team has 2 leads. The third day has 3 talks.",
    ],
)
def test_digits_after_a_label_with_no_such_place_stay_misattached(source: str) -> None:
    assert status("Day 2 closes with 3 talks.", source, "2") == M


@pytest.mark.parametrize(
    ("explainer", "number", "source"),
    [
        # The source names no day (step) at all: its figure of the value is of other
        # things, no day of its to misattach the place to. Before, misattached to it with
        # a reason of what it counts, or (the digits) supported by it.
        (
            "Day two closes with the AI Community Bash.",
            "two",
            "Get started with the PyTorch 2-series. Two additions to torch.linalg.",
        ),
        (
            "Day one closes with the Flare Party.",
            "one",
            "It costs an 8.5x slowdown on one path. Builds run every day.",
        ),
        ("Day 2 of PyTorchCon closes with the bash.", "2", "PyTorchCon has 2 stages."),
        ("In step 2, the model trains.", "2", "The model trains for 2 epochs."),
    ],
)
def test_a_place_of_things_the_source_never_names_is_unsupported(
    explainer: str, number: str, source: str
) -> None:
    v = verdict(explainer, source, number)
    label = explainer.split(number)[0].split()[-1].lower()
    assert (v.status, v.reason, v.source) == (U, f'the source has no "{label} {number}"', None)


@pytest.mark.parametrize(
    ("explainer", "number", "source", "reason", "backing"),
    [
        # The source has other days (steps): the place is misattached, to the sentence its
        # value counts other things in, the reason said of that sentence (before, the
        # first place of the value: "In 2 of them, talks run late.").
        (
            "Day two closes with 3 talks.",
            "two",
            "In 2 of them, talks run late. Two tracks run. Day 3 closes with 3 talks.",
            'the source counts tracks there, not "days"',
            "Two tracks run.",
        ),
        # Digits as the word (before, supported by the stages' "2").
        (
            "Day 2 closes with the bash.",
            "2",
            "PyTorchCon has 2 stages. Day 3 closes with the bash.",
            'the source counts stages there, not "days"',
            "PyTorchCon has 2 stages.",
        ),
        (
            "In step 2, the model trains.",
            "2",
            "The model trains for 2 epochs. The last step runs the tests.",
            'the source counts epochs there, not "steps"',
            "The model trains for 2 epochs.",
        ),
        # Nothing of the value counts other things: the source's other day.
        (
            "Day 2 closes with the bash.",
            "2",
            "Version 2 is out. The first day closes with the bash.",
            "the source names no day 2",
            "The first day closes with the bash.",
        ),
    ],
)
def test_a_place_the_source_numbers_otherwise_is_misattached(
    explainer: str, number: str, source: str, reason: str, backing: str
) -> None:
    v = verdict(explainer, source, number)
    assert (v.status, v.reason, v.source) == (M, reason, backing)


@pytest.mark.parametrize(
    ("source", "backing"),
    [
        # The source writes the label with the digits: that sentence backs them, not the
        # other "2" before it.
        ("PyTorchCon has 2 stages. Day 2 closes with the bash.", "Day 2 closes with the bash."),
        ("It has 2 stages. On day 2, the bash closes it.", "On day 2, the bash closes it."),
    ],
)
def test_digits_the_source_writes_after_the_label_back_them(source: str, backing: str) -> None:
    v = verdict("Day 2 closes with the bash.", source, "2")
    assert (v.status, v.source) == (S, backing)


def test_digits_of_a_value_the_source_lacks_stay_not_in_the_source() -> None:
    v = verdict("Day 5 closes with the bash.", "Day 3 closes with the bash.", "5")
    assert v.status == U
    assert v.reason == verdict("It has 5 stages.", "Day 3 closes with the bash.", "5").reason


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A span of days written with a hyphen names day two as "two days" does ("Two-day":
        # before, misattached to the tracks' "2"); one of more days names other days.
        ("It has 2 tracks. Two-day passes sell.", (S, None, "Two-day passes sell.")),
        ("It has 2 tracks. A 2-day pass sells.", (S, None, "A 2-day pass sells.")),
        (
            "It has 2 tracks. A three-day summit.",
            (M, 'the source counts tracks there, not "days"', "It has 2 tracks."),
        ),
        # "day-to-day" is no day of a sequence.
        (
            "Builds run day-to-day. Two tracks run.",
            (U, 'the source has no "day two"', None),
        ),
    ],
)
def test_a_hyphened_span_of_days(source: str, expected: tuple[object, ...]) -> None:
    v = verdict("Day two closes with talks.", source, "two")
    assert (v.status, v.reason, v.source) == expected
