"""How a kept sentence is worded: hype words out, the authors' "we" in the third person,
closing punctuation, and results attributed to the post."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from service.engines.extractive.inline import strip_refs
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


_FIRST_PERSON = [
    (re.compile(r"\bwe[’']re\b"), "the authors are"),
    (re.compile(r"\bWe[’']re\b"), "The authors are"),
    (re.compile(r"\bwe[’']ve\b"), "the authors have"),
    (re.compile(r"\bWe[’']ve\b"), "The authors have"),
    (re.compile(r"\bwe[’']ll\b"), "the authors will"),
    (re.compile(r"\bWe[’']ll\b"), "The authors will"),
    (re.compile(r"\bwe[’']d\b"), "the authors would"),
    (re.compile(r"\bWe[’']d\b"), "The authors would"),
    (re.compile(r"\bwe\b"), "the authors"),
    (re.compile(r"\bWe\b"), "The authors"),
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


def third_person(sentence: str, voice: Voice = "authors") -> str:
    """The authors' "we" as "the authors" (numbers are never touched). "us" is "them"
    after the authors were named in the sentence ("We hope it helps us"), else "the
    authors" ("Join us in San Jose" as "Join them in ..." named nobody). In the team's
    voice (``voice_of``), "we" is "the team", its verb made to agree."""
    if voice == "team":
        return as_team(sentence)
    for pat, repl in _FIRST_PERSON:
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


_ATTRIBUTED = re.compile(
    r"\b(the authors|the post|according to|report(s|ed)?|the team|the companies|"
    r"the study|the paper)\b",
    re.IGNORECASE,
)
_ATTRIBUTIONS = ("The authors report that ", "According to the post, ", "The post reports that ")
_TEAM_REPORTS = "The team reports that "
_AFTER = ", according to the post."
# A leading setting closed by a colon, then a clause ("On 8x MI325X GPU with DeepSeek-V3
# 671B: this change delivered ..."): after "The authors report that" the colon reads as
# a list's; a comma closes the setting as the sentence then runs on.
_SETTING_COLON = re.compile(
    r"^([^:;.]{3,100}?): (?=(?:this|these|that|those|the|it|its|they|each|every|both|a|an) )"
)


def write_sentence(
    text: str, attribute: int | None, case: CaseTable, voice: Voice = "authors"
) -> str:
    """A kept sentence as the explainer says it; ``attribute`` picks the wording that
    credits the post with the result (``None``: no attribution)."""
    s = finish(third_person(strip_refs(text), voice))
    if attribute is not None and not _ATTRIBUTED.search(s):
        lowered = lower_first(s, case)
        wording = _ATTRIBUTIONS[attribute % len(_ATTRIBUTIONS)]
        if voice == "team" and wording == _ATTRIBUTIONS[0]:
            wording = _TEAM_REPORTS
        if lowered is not None and wording.endswith(" that ") and lowered.startswith("that "):
            s = _ATTRIBUTIONS[1] + lowered  # not "reports that that flywheel ..."
        elif lowered is not None:
            s = wording + _SETTING_COLON.sub(r"\1, ", lowered, count=1)
        elif written_as_name(s.split(" ", 1)[0].rstrip(",;:"), case) or not s.endswith("."):
            s = _ATTRIBUTIONS[1] + s  # a name opens the sentence: keep its capital
        else:
            # A capital the post gives no clue about ("Performance is now ..."): rather
            # than guess its case after a comma, say where it comes from at the end.
            s = s[:-1] + _AFTER
    return s
