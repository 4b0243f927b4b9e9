"""text: reading cleaned text back as blocks."""

from __future__ import annotations

import random

import pytest

from service.text import single_spaced, split_blocks, split_sentences


def test_escaped_pipe_stays_inside_its_cell() -> None:
    text = "| Flag | Meaning |\n| --- | --- |\n| a\\|b | either a or b |\n| `x` | 2 \\| 3 |"
    [table] = split_blocks(text)
    assert table.kind == "table"
    assert table.header == ("Flag", "Meaning")
    assert table.rows == (("a|b", "either a or b"), ("`x`", "2 | 3"))
    assert "| a\\|b | either a or b |" in table.text  # the raw text keeps the escape


def test_table_rows_and_empty_cells() -> None:
    text = "before\n\n| A | B |\n|---|:--:|\n| 1 |  |\n\nafter"
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == ["paragraph", "table", "paragraph"]
    assert blocks[1].rows == (("1", ""),)


def test_wrapped_list_items_keep_their_continuation_lines() -> None:
    text = (
        "Intro paragraph.\n\n"
        "- **Eager execution:** eligible calls dispatch to FlyDSL when\n"
        "  the optional runtime is installed; other calls retain ATen.\n"
        "- Second item\n"
        "continued lazily.\n"
        "## Next\n"
    )
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == ["paragraph", "list_item", "list_item", "heading"]
    assert blocks[1].text == (
        "**Eager execution:** eligible calls dispatch to FlyDSL when "
        "the optional runtime is installed; other calls retain ATen."
    )
    assert blocks[2].text == "Second item continued lazily."


def test_list_item_stops_at_a_table_or_fence() -> None:
    text = "- item\n| a | b |\n| --- | --- |\n| 1 | 2 |\n- other\n```\ncode\n```\n"
    kinds = [b.kind for b in split_blocks(text)]
    assert kinds == ["list_item", "table", "list_item", "code"]


def test_a_sentence_ends_after_milliseconds_but_not_after_a_title() -> None:
    text = "Forward goes from ~19 ms to ~7 ms. The FP8 path adds 127 ms. Ms. Smith agrees."
    assert split_sentences(text) == [
        "Forward goes from ~19 ms to ~7 ms.",
        "The FP8 path adds 127 ms.",
        "Ms. Smith agrees.",
    ]


def test_incl_does_not_end_a_sentence() -> None:
    assert split_sentences("Python 3.10 to 3.15, incl. 3.14t, 3.15t. Next.") == [
        "Python 3.10 to 3.15, incl. 3.14t, 3.15t.",
        "Next.",
    ]


def test_a_sentence_may_start_with_a_lower_case_identifier() -> None:
    # "lu_factor and lu_solve move ...": a code name keeps its case at a sentence's start
    # (the sentence before it would hold its figures and names too); an abbreviation
    # before one still ends nothing.
    # For the number check only: the extractive engine keeps it with the one before.
    text = "Cholesky gets faster. lu_factor moves to Metal, e.g. lu_solve too. torch.compile works."
    assert split_sentences(text, code=True) == [
        "Cholesky gets faster.",
        "lu_factor moves to Metal, e.g. lu_solve too.",
        "torch.compile works.",
    ]
    assert split_sentences(text) == [text]


def test_german_abbreviations_end_no_sentence() -> None:
    # German capitalises the noun after a scale or unit: "1,2 Mio. Nutzer" is one phrase.
    text = "Es sind 1,2 Mio. Nutzer und 3 Mrd. Parameter. Das dauert ca. 2 Std. Rechenzeit."
    assert split_sentences(text) == [
        "Es sind 1,2 Mio. Nutzer und 3 Mrd. Parameter.",
        "Das dauert ca. 2 Std. Rechenzeit.",
    ]
    text = "Kernel wie z. B. TopK, d. h. Sortieren, bzw. Mischen, z.B. Triton. Ende."
    assert split_sentences(text) == [text[: -len(" Ende.")], "Ende."]
    # An English sentence still ends where it did.
    assert split_sentences("In San Jose, CA. Explore more. It has 3 MIO. Then.") == [
        "In San Jose, CA.",
        "Explore more.",
        "It has 3 MIO.",
        "Then.",
    ]


def test_single_spaced_is_the_split_and_join_of_any_text() -> None:
    rng = random.Random(5)
    pieces = ["a", "b.", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85"]
    pieces += ["\xa0", "\u2003", "é"]
    for _ in range(50000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert single_spaced(text) == " ".join(text.split()), repr(text)
    assert single_spaced("Two  spaces, then\ta tab ") == "Two spaces, then a tab"


def test_a_sentence_ends_after_a_unit_of_one_letter_not_after_an_initial() -> None:
    # "12 s. Warm start ..." was one sentence: the check read the next one's words
    # ("warm") as the clause of its 12 s, and "A warm start takes 12 s" passed.
    text = "Cold start takes 12 s. Warm start takes 3 s. It ran for 2 h. J. Smith and 2 A. Lee."
    assert split_sentences(text) == [
        "Cold start takes 12 s.",
        "Warm start takes 3 s.",
        "It ran for 2 h.",
        "J. Smith and 2 A. Lee.",
    ]


@pytest.mark.parametrize(
    "said",
    [
        "(about 2x faster.)",
        "[about 2x faster.]",
        '"about 2x faster."',
        "“about 2x faster.”",
        "‘about 2x faster.’",
        "«about 2x faster.»",
        '(he said "about 2x faster.")',
        "(about 2x faster?)",
        '"about 2x faster!"',
    ],
)
def test_a_sentence_keeps_the_brackets_and_quotes_its_stop_closes(said: str) -> None:
    # Cut at the stop, the ")" or quote went to neither sentence ("It is fast (about 2x
    # faster."); after a curly quote or a guillemet no sentence ended at all.
    assert split_sentences(f"It is fast {said} Then it stops.") == [
        f"It is fast {said}",
        "Then it stops.",
    ]


def test_each_sentence_ends_with_what_its_stop_closes() -> None:
    text = 'It is fast (about 2x faster.) Then it stops. He said "it is 3x." Next one.'
    assert split_sentences(text) == [
        "It is fast (about 2x faster.)",
        "Then it stops.",
        'He said "it is 3x."',
        "Next one.",
    ]


def test_a_closer_ends_no_sentence_without_a_stop_nor_after_an_abbreviation() -> None:
    # "(see above) Then": no stop, no end. An abbreviation, a single letter or a figure's
    # point before the closer ends nothing either; a unit after a figure still does.
    text = (
        "The gain (see above) Then grows (to 1.10x in v0.14.2b, i.e. on 3 GPUs.) It runs on"
        " AMD (MI300X, etc.) Results follow (plan B.) And (see Fig. 2.) Time goes from 19 ms"
        " (to 7 ms.) Next one."
    )
    assert split_sentences(text) == [
        "The gain (see above) Then grows (to 1.10x in v0.14.2b, i.e. on 3 GPUs.)",
        "It runs on AMD (MI300X, etc.) Results follow (plan B.) And (see Fig. 2.)",
        "Time goes from 19 ms (to 7 ms.)",
        "Next one.",
    ]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("It stops. “Then it goes.” Next.", ["It stops.", "“Then it goes.”", "Next."]),
        ("It stops. ‘Then.’ Next.", ["It stops.", "‘Then.’", "Next."]),
        ("Il part. «Ensuite.» Fin.", ["Il part.", "«Ensuite.»", "Fin."]),
        ("Er sagt. „Dann geht es.“ Es läuft.", ["Er sagt.", "„Dann geht es.“", "Es läuft."]),
        ("Es läuft 2x. Über 3x mehr. État 4.", ["Es läuft 2x.", "Über 3x mehr.", "État 4."]),
    ],
)
def test_a_sentence_may_open_with_a_curly_quote_a_guillemet_or_an_accented_capital(
    text: str, sentences: list[str]
) -> None:
    # Only straight quotes and brackets opened a sentence, and only A-Z capitals: a
    # quoted sentence or a German "Über ..." ran on with the one before, whose figures
    # and names the check then read as one clause.
    assert split_sentences(text) == sentences
    assert split_sentences(text, code=True) == sentences


def test_a_code_name_after_a_closed_sentence_starts_the_next() -> None:
    text = "Cholesky gets faster (on MPS.) lu_factor moves to Metal."
    assert split_sentences(text, code=True) == [
        "Cholesky gets faster (on MPS.)",
        "lu_factor moves to Metal.",
    ]


def test_the_sentences_are_the_whole_text() -> None:
    # Callers find each sentence in the text again (the number check's units, the
    # definitions' sentence spans): nothing between two sentences but the space.
    rng = random.Random(7)
    pieces = ["It", "runs", "2x.", "1.10x", "e.g.", "etc.", "B.", "ms.", "19", "lu_factor", "."]
    pieces += [
        "?",
        "!",
        "(",
        ")",
        "[",
        "]",
        '"',
        "'",
        "“",
        "”",
        "’",
        "»",
        "„",
        "‘",
        "«",
        "Über",
        " ",
        " ",
        "  ",
        "\n",
    ]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        for code in (False, True):
            sentences = split_sentences(text, code=code)
            assert " ".join(sentences) == single_spaced(text), repr(text)
