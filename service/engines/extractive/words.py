"""Words as the post writes them: stop words, content words, and letter case (how a word is
written mid-sentence, so that headings and titles can be put in sentence case)."""

from __future__ import annotations

import re
from collections import Counter

# For each word (lower case), how the post writes it where it does not start a sentence.
CaseTable = dict[str, Counter[str]]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOPWORDS = wordset(
    """a an and are as at be by for from has have how in into is it its of on or that the
    their this to was were what when where which while who why will with without your you
    we our us can new now more most than then these those not no"""
)


def content_words(text: str) -> set[str]:
    """The lower-cased words of ``text`` that carry meaning (no stop words, no short ones)."""
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 2}


def case_table(text: str) -> CaseTable:
    """For each word, how it is written where it does not start a sentence."""
    table: CaseTable = {}
    for m in re.finditer(r"(?<=[a-z0-9,;)] )([A-Za-z][\w\-]*)", text):
        w = m.group(1)
        table.setdefault(w.lower(), Counter())[w] += 1
    return table


def written_as_name(word: str, table: CaseTable) -> bool:
    """Whether the post writes ``word`` capitalised where it does not start a sentence
    (a name: "Meta", "Triton"), as opposed to a word it never uses mid-sentence."""
    usual = _usual_case(word, table)
    return word.lower() in table and usual != usual.lower()


def _usual_case(word: str, table: CaseTable) -> str:
    seen = table.get(word.lower())
    if not seen:
        return word
    return seen.most_common(1)[0][0]


def is_title_word(word: str) -> bool:
    """'Features', 'Kernel-Level': capitalised ordinary words, not PyTorch, GEMM or FP8."""
    parts = [p for p in word.split("-") if p]
    return (
        bool(parts)
        and parts[0][:1].isupper()
        and all(
            (p[:1].isupper() and p[1:].isalpha() and p[1:] == p[1:].lower())
            or p in ("to", "of", "and", "in", "on", "for", "the", "a")
            for p in parts
        )
    )


def sentence_case(heading: str, table: CaseTable) -> str:
    """Title Case as sentence case: a word goes lower case when the post writes it lower
    case mid-sentence; names and acronyms (PyTorch, GEMM, vLLM, FP8) keep their case."""
    return capitalise(subject_case(heading, table))


def _title_cased(title: str) -> bool:
    """Whether ``title`` is in Title Case: every word past its first capitalised but
    short and stop words ("Keynote Speaker Sessions Announced")."""
    words = [w for w in _WORD.findall(title)[1:] if len(w) > 3 and w.lower() not in STOPWORDS]
    return bool(words) and all(w[:1].isupper() for w in words)


def title_case(title: str, table: CaseTable) -> str:
    """A title in the case the post gives it, the same throughout. In Title Case: in
    sentence case (``sentence_case``) when the post writes each of its ordinary words
    past the first mid-sentence, as written otherwise (lowered where the post has a clue
    and not elsewhere, it read "Keynote Speaker sessions Announced"). In sentence case:
    two capitalised words in a row past its first are a name's, as written ("the UK AI
    Security Institute" read "UK AI security Institute"); others as ``sentence_case``."""
    words = title.split(" ")
    cores = [w.strip("\"'():,;?!") for w in words]
    if _title_cased(title):
        if all(
            not is_title_word(w) or w.lower() in STOPWORDS or w.lower() in table for w in cores[1:]
        ):
            return sentence_case(title, table)
        return capitalise(title)

    def named(i: int) -> bool:
        return 0 < i < len(cores) and is_title_word(cores[i]) and cores[i].lower() not in STOPWORDS

    keep = {i for i in range(1, len(words)) if named(i) and (named(i - 1) or named(i + 1))}
    out = [w if i in keep else subject_case(w, table) for i, w in enumerate(words)]
    return capitalise(" ".join(out))


def subject_case(heading: str, table: CaseTable, *, unknown_lower: bool = False) -> str:
    """Title Case as the words are written mid-sentence ("Dense GEMM" -> "dense GEMM");
    ``unknown_lower``: a capitalised word the post never writes mid-sentence goes lower
    case too (a heading's "Acceleration"), where ``sentence_case`` keeps it."""
    out = []
    for w in heading.split(" "):
        core = w.strip("\"'():,;?!")
        if core and is_title_word(core):
            usual = _usual_case(core, table)
            if usual.lower() == core.lower() and usual != core and not is_title_word(usual):
                w = w.replace(core, usual, 1)
            elif usual == core and (
                core.lower() in STOPWORDS or (unknown_lower and core.lower() not in table)
            ):
                w = w.replace(core, core.lower(), 1)
        out.append(w)
    return " ".join(out)


def capitalise(text: str) -> str:
    """Upper-case the first letter unless the first word is an identifier (vLLM, fp8)."""
    first = text.split(" ", 1)[0].rstrip(",;:")  # "compiler, runtime, ..." too
    if re.fullmatch(r"[a-z][a-z\-’']*", first):
        return text[:1].upper() + text[1:]
    return text


def lower_first(sentence: str, table: CaseTable) -> str | None:
    """The sentence with its first letter lower-cased to follow "that" or a comma; ``None``
    when the first word is a name (the post writes it capitalised mid-sentence)."""
    first = sentence.split(" ", 1)[0].rstrip(",;:")
    if first.lower() in STOPWORDS and (len(first) == 1 or first[1:].islower()):
        return sentence[0].lower() + sentence[1:]  # "A tie ...", "The loop ..."
    if not is_title_word(first):
        return None if first[:1].isupper() else sentence
    known = first.lower() in table
    if (
        first.lower() in STOPWORDS
        or (known and _usual_case(first, table) == first.lower())
        # A word the post never uses mid-sentence: ordinary if it looks like one.
        or (not known and re.search(r"(ing|ed|ly|ion|s)$", first.lower()) is not None)
    ):
        return sentence[0].lower() + sentence[1:]
    return None


def restore_slug(title: str, case: CaseTable) -> str:
    """'how-shopify-built-a-loop' (a scraped slug) as 'How Shopify built a loop'."""
    if " " in title or title.count("-") < 2 or title != title.lower():
        return title
    words = [_usual_case(w, case) for w in title.split("-")]
    s = " ".join(words)
    return s[:1].upper() + s[1:]
