"""How a kept sentence is worded: hype words out, the authors' "we" in the third person,
closing punctuation, and results attributed to the post."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from service.engines.extractive.fragments import has_no_finite_verb
from service.engines.extractive.inline import strip_refs
from service.engines.extractive.phrases import ENGLISH, Wording
from service.engines.extractive.team import as_team
from service.engines.extractive.words import CaseTable, lower_first, written_as_name
from service.models import Article

# Hype adjectives and adverbs that can go without breaking the sentence. Not
# "state-of-the-art": in this field it is a claim about a result, which the explainer
# keeps or drops whole, not a word to strip from it.
_HYPE_WORD = re.compile(
    r"\b(unprecedented|incredibl[ey]|amazing|awesome|best-in-class|world-class|cutting-edge|"
    r"groundbreaking|revolutionary|breakthrough|stunning|mind-blowing|"
    r"blazing(?:ly)?[- ]fast|lightning[- ]fast|seamless(?:ly)?|effortless(?:ly)?|"
    r"game[- ]changing|insanely|truly)\s+(?=[\w(])",
    re.IGNORECASE,
)

_NEGATION = re.compile(r"\b(?:not|no|never|nor|neither|without)\b|n[’']t\b", re.IGNORECASE)


def dehype(sentence: str) -> str:
    """The sentence without removable hype words ("our breakthrough model" -> "our model");
    a negated sentence as it is ("seamless scaling is not the goal" says something else
    without the word)."""
    if _NEGATION.search(sentence):
        return sentence
    out = _HYPE_WORD.sub("", sentence)
    if out == sentence:
        return sentence
    # The article that preceded a removed word now precedes another one.
    out = re.sub(r"\b([Aa])n (?=[b-df-hj-np-tv-z])", r"\1 ", out)
    out = re.sub(r"\b([Aa]) (?=[aeiou])", r"\1n ", out)
    return out[:1].upper() + out[1:] if sentence[:1].isupper() else out


_WE = re.compile(r"\b([Ww])e(?:[’'](re|ve|ll|d))?\b")
_CONTRACTED = {"re": "are", "ve": "have", "ll": "will", "d": "would"}
_FIRST_PERSON = [
    (re.compile(r"\bour\b"), "their"),
    (re.compile(r"\bOur\b"), "Their"),
    (re.compile(r"\bours\b"), "theirs"),
    (re.compile(r"\bourselves\b"), "themselves"),
]
_US = re.compile(r"\b[Uu]s\b")

# Who "we" is: the post's authors, or the publisher speaking for itself ("We are
# investigating elevated errors" on a status page, an unsigned company notice), whom "the
# authors" misnames: "The authors will provide an update".
Voice = Literal["authors", "team"]


# A status page's update: "Oct 7, 21:23 UTC Resolved - We have ...", "Status: Resolved".
_STATUS_UPDATE = re.compile(
    r"(?:^|\b(?:UTC|GMT|PT|ET)\s+)(?:Investigating|Identified|Monitoring|Resolved|Update|"
    r"Postmortem|Scheduled|Verifying|Completed)\s+[-–—]\s|^Status:\s+(?:Resolved|"
    r"Investigating|Identified|Monitoring|Operational|Degraded)",
    re.MULTILINE,
)


def voice_of(article: Article) -> Voice:
    """ "team" for a status page's incident (a host "status.*", a path with "/incidents/",
    updates marked "Investigating - ...") and for a feed's post without a byline, where
    the publisher speaks; "authors" for a signed post and for a document given as a file,
    which names its authors or not."""
    parts = urlsplit(article.url or "")
    host = (parts.hostname or "").lower()
    if host.startswith("status.") or "/incidents/" in parts.path.lower():
        return "team"
    if _STATUS_UPDATE.search(article.text):
        return "team"
    if not (article.author or "").strip() and article.content_source in ("feed", "page"):
        return "team"
    return "authors"


# A quotation of at least three words: curly quotes, or straight ones in pairs. Its
# "we" is its speaker's ("“We are thrilled to partner,” said the CEO of ..."), not the
# post's authors' nor the publisher's. A quote the sentence opens and does not close (the
# first sentence of a longer one) runs to its end; one it closes first ran from its start.
# A straight quote has one spelling for both ends: unmatched, it opens a quotation only
# where the sentence starts with it. Mid-sentence it is a stray mark ("We call it the
# "fast path and we enable it"), and taking it for an opening quote left the rest of the
# sentence in the first person as some speaker's words.
_QUOTE = re.compile(r"“[^“”]*(?:”|$)|^[^“”]*”|(?<![\w])\"[^\"]*\"(?![\w])|^\"[^\"]*$")
_MASK = "\ue000"


def _masked(sentence: str) -> tuple[str, list[str]]:
    """``sentence`` with each quotation of three words or more replaced by a mark (no
    letter, no digit), and the quotations in order."""
    quotes: list[str] = []

    def mask(m: re.Match[str]) -> str:
        if len(m.group(0).split()) < 3:
            return m.group(0)  # “HW agnostic”: a term, not a speaker's words
        quotes.append(m.group(0))
        return _MASK

    return _QUOTE.sub(mask, sentence), quotes


def third_person(sentence: str, voice: Voice = "authors", who: str = "") -> str:
    """The authors' "we" as "the authors", later in the same sentence as "they"
    ("Now that the authors have a judge, they can use it"); numbers are never touched.
    "us" is "them" after the authors were named in the sentence ("We hope it helps us"),
    else "the authors" ("Join us in San Jose" as "Join them in ..." named nobody). In
    the team's voice (``voice_of``), "we" is "the team", its verb made to agree; ``who``
    names another team that speaks there ("TorchJD": "the TorchJD team"). A quotation's
    first person is its speaker's and stays as written."""
    text, quotes = _masked(sentence)
    if who:
        text = as_team(text, f"{who} team")
    else:
        text = as_team(text) if voice == "team" else _as_authors(text)
    for quote in quotes:
        text = text.replace(_MASK, quote, 1)
    return text


def _as_authors(sentence: str) -> str:
    """``third_person`` in the authors' voice, quotations masked."""
    named = False

    def we(m: re.Match[str]) -> str:
        nonlocal named
        word = m.group(0)
        contracted = _CONTRACTED.get(m.group(2) or "", "")
        if named and word[0] == "w":
            # The authors named once, the sentence goes on with "they", unless another
            # "they" or "them" there could be someone else.
            said = sentence[: m.start()]
            if not re.search(r"\b(?:they|them|their)\b", said, re.IGNORECASE):
                return f"they {contracted}" if contracted else "they"
        named = True
        out = "The authors" if word[0] == "W" else "the authors"
        return f"{out} {contracted}" if contracted else out

    sentence = _WE.sub(we, sentence)
    for pat, repl in _FIRST_PERSON[-4:]:  # our, Our, ours, ourselves
        sentence = pat.sub(repl, sentence)

    def us(m: re.Match[str]) -> str:
        named = "authors" in sentence[: m.start()].lower()
        word = "them" if named else "the authors"
        return word[0].upper() + word[1:] if m.group()[0] == "U" else word

    return _US.sub(us, sentence)


def finish(sentence: str) -> str:
    """The sentence closed with a full stop and opened with a capital."""
    s = sentence.strip()
    if s.endswith(":"):
        s = s[:-1].rstrip() + "."
    if s and s[-1] not in ".!?" and not (len(s) > 1 and s[-1] in "\"'”’)" and s[-2] in ".!?"):
        s += "."
    if s and re.fullmatch(r"[a-z][a-z’'\-]*[,;:]?", s.split(" ", 1)[0]):
        s = s[0].upper() + s[1:]  # but not torch.compile, vLLM or fp8
    return s


# A sentence that says whose result it is; "said"/"says" names a quotation's speaker
# ("“We cut latency by 40%,” said Jane Doe": "The authors report that “We cut ...").
_ATTRIBUTED = re.compile(
    r"\b(the authors|the post|according to|report(s|ed)?|the team|the companies|"
    r"the study|the paper|said|says)\b",
    re.IGNORECASE,
)
# A leading setting closed by a colon, then a clause ("On 8x MI325X GPU with DeepSeek-V3
# 671B: this change delivered ..."): after "The authors report that" the colon reads as
# a list's; a comma closes the setting as the sentence then runs on.
_SETTING_COLON = re.compile(
    r"^([^:;.]{3,100}?): (?=(?:this|these|that|those|the|it|its|they|each|every|both|a|an) )"
)


def _no_clause(sentence: str) -> bool:
    """Whether ``sentence`` cannot follow "reports that": it opens with "that", or with a
    noun phrase that a comma closes before any verb ("a tie on pass@1, but GLM-5.3
    wins ...")."""
    if sentence.startswith("that "):
        return True
    head = sentence.split(", ", 1)
    return (
        len(head) > 1
        and head[0].split(" ", 1)[0] in ("a", "an", "the", "this", "these")
        and has_no_finite_verb(head[0])
    )


def write_sentence(
    text: str,
    attribute: int | None,
    case: CaseTable,
    voice: Voice = "authors",
    who: str = "",
    wording: Wording = ENGLISH,
) -> str:
    """A kept sentence as the explainer says it; ``attribute`` picks the wording that
    credits the post with the result (``None``: no attribution), from ``wording`` (the
    feed's language's); ``who``: the project whose team speaks in it (``third_person``),
    which the post then reports."""
    s = finish(third_person(strip_refs(text), voice, who))
    if attribute is not None and not _attributed(s, wording):
        credits = wording.attributions
        lowered = lower_first(s, case) if wording.lower else s
        prefix = credits[attribute % len(credits)]
        if who and prefix == credits[0]:
            prefix = credits[2]  # the post reports what that team says
        elif voice == "team" and prefix == credits[0]:
            prefix = wording.team
        if lowered is not None and wording.clause and _no_clause(lowered):
            # Not "reports that that flywheel ...", nor "reports that a tie on pass@1,
            # but ...": "that" needs a clause after it.
            s = credits[1] + lowered
        elif lowered is not None:
            s = prefix + (
                _SETTING_COLON.sub(r"\1, ", lowered, count=1) if wording.clause else lowered
            )
        elif written_as_name(s.split(" ", 1)[0].rstrip(",;:"), case) or not s.endswith("."):
            s = credits[1] + s  # a name opens the sentence: keep its capital
        else:
            # A capital the post gives no clue about ("Performance is now ..."): rather
            # than guess its case after a comma, say where it comes from at the end.
            s = s[:-1] + wording.after
    return s


def _attributed(sentence: str, wording: Wording) -> bool:
    """Whether ``sentence`` says whose result it is already, in English or in the words
    ``wording`` credits with."""
    if _ATTRIBUTED.search(sentence):
        return True
    marks = (*wording.attributions, wording.team, wording.after)
    return any(m.strip(" ,.:").lower() in sentence.lower() for m in marks if wording != ENGLISH)
