"""The publisher's "we" as "the team": a status page's "We are investigating elevated
errors" is "The team is investigating elevated errors", not "The authors are ...". "The
team" is singular: the verb after it agrees ("is", "has", "continues"), and "our" is
"its" once the team is named in the sentence."""

from __future__ import annotations

import re

from service.engines.extractive.words import wordset

_WE = re.compile(r"\b([Ww])e(?:[’'](re|ve|ll|d))?\b")
_CONTRACTED = {"re": "is", "ve": "has", "ll": "will", "d": "would"}
# A verb form that a singular subject takes as it is, or one that is not a verb.
_AS_IS = wordset(
    """will would can could may might must shall should had did was cannot won't wouldn't
    can't couldn't shouldn't mustn't didn't hadn't wasn't
    ran saw made built found took gave got began wrote put set cut read kept left held
    brought thought knew went came became spent sent led met chose drew grew rose fell won
    lost paid said told sold hit let shut quit spread cost
    all both ourselves together each alone too and or but as than who that which"""
)
# Irregular past forms that a prefix keeps past ("rewrote", "rebuilt", "overtook").
_PAST_ENDINGS = tuple(
    sorted(
        wordset(
            """wrote built took made brought thought gave began became came went kept held
            sold told grew drew threw knew chose rose fell fought caught taught bought
            sought stood spoke broke drove forgot got ran"""
        )
    )
)
_AGREE = {
    "are": "is",
    "were": "was",
    "have": "has",
    "do": "does",
    "aren't": "isn't",
    "weren't": "wasn't",
    "haven't": "hasn't",
    "don't": "doesn't",
}
# Adverbs between "we" and its verb ("We are also", "we now expect", "we continue").
_ADVERBS = wordset(
    """also just now still currently already recently then first often always never only
    further again actively continually closely quickly fully"""
)
_NEXT = re.compile(r"(\s+)(?:([a-z]+)(\s+))?([A-Za-z][A-Za-z’']*)")
# A second verb of the same subject ("have identified the cause and are working on a fix").
# Besides the verbs to be and to have, the base forms a post's "we ... and VERB" holds
# that are seldom nouns there ("release", "plan", "share", "measure" are left alone: "and
# release notes", "market share").
_AND_BASE = (
    "show|demonstrate|introduce|present|propose|describe|explain|discuss|provide|expect"
    "|continue|recommend|encourage|believe|find|observe|achieve|evaluate|compare|enable"
    "|deliver|remain|invite|welcome|thank|apply|outline|highlight|analyze|analyse|open-source"
)
_AND_VERB = re.compile(
    r"\b(and|but)\s+(are|were|have|aren[’']t|weren[’']t|haven[’']t|" + _AND_BASE + r")\b"
)
_OUR = re.compile(r"\b([Oo])ur\b(?:\s+(team)\b)?|\b([Oo])urs\b|\bourselves\b|\b[Uu]s\b")


def _singular(verb: str) -> str:
    """A present-tense verb for a singular subject: "continue" -> "continues"."""
    key = verb.lower().replace("’", "'")
    if key in _AGREE:
        out = _AGREE[key]
        return out.replace("'", "’") if "’" in verb else out
    if key in _AS_IS or key.endswith(("ed", *_PAST_ENDINGS)) or not verb.islower() or "'" in key:
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return verb[:-1] + "ies"
    return verb + "s"


def _with_verb(text: str, at: int) -> tuple[str, bool]:
    """``text`` from ``at`` on, its first verb (past an adverb) agreeing with "the team",
    and whether that verb is a plain present ("introduces", "works"): only then is a
    verb after "and" a base form that agrees too ("will publish X and share Y" stays)."""
    m = _NEXT.match(text, at)
    if not m:
        return text[at:], False
    space, adverb, gap, word = m.groups()
    if adverb is not None and adverb not in _ADVERBS:
        # The first word is the verb ("we investigate the errors"): leave the next alone.
        m = re.match(r"(\s+)([A-Za-z][A-Za-z’']*)", text[at:])
        assert m is not None
        word = m.group(2)
        said = _singular(word)
        return m.group(1) + said + text[at + m.end() :], _plain_present(word, said)
    lead = space + (adverb + gap if adverb else "")
    said = _singular(word)
    return lead + said + text[m.end() :], _plain_present(word, said)


def _plain_present(word: str, said: str) -> bool:
    """Whether ``said`` is ``word`` made a plain present for "the team" ("introduces",
    "does"), no auxiliary ("is", "has"), no past, no modal."""
    return said != word and said.lower() not in ("is", "was", "has", "isn't", "wasn't", "hasn't")


# Words that open an object, the sign that the word before them after "and" is a verb
# ("and open-source the code", "and describe how ..."), not a noun ("and release notes").
_OBJECT = wordset(
    """a an the its their this these those how what why whether it them our each every
    several both"""
)
# Words after "and" that are no verb, object or not ("and later the team", "and then").
_NOT_VERBS = _ADVERBS | wordset("later soon then once twice together today here there more")
_AND_WORD = re.compile(r"\b(and|but)\s+([a-z]+(?:[-’'][a-z]+)?)\b(?=(?:\s+([A-Za-z’']+))?)")


def _and_verbs(clause: str, present: bool) -> str:
    """The second verbs of the team's clause made to agree: "are", "were", "have" always,
    a base form only after a plain present: a listed one ("and show"), or any word
    before an object ("and open-source the code") that is no noun by its ending."""

    def agree(m: re.Match[str]) -> str:
        conj, word, nxt = m.groups()
        if _AND_VERB.match(m.group(0)):
            aux = word in ("are", "were", "have") or word.startswith(("aren", "weren", "haven"))
            return f"{conj} {_singular(word)}" if aux or present else m.group(0)
        if (
            present
            and nxt is not None
            and nxt.lower() in _OBJECT
            and word not in _NOT_VERBS
            and word not in _AS_IS
            and not re.search(r"(?<!s)s$|ed$|ing$|ly$|ion$|ment$|ness$|ity$|er$", word)
        ):
            return f"{conj} {_singular(word)}"
        return m.group(0)

    return _AND_WORD.sub(agree, clause)


def as_team(sentence: str, team: str = "team") -> str:
    """The sentence with the publisher's "we", "our" and "us" as the team's (``team``:
    "team", or "TorchJD team" where a roundup's section speaks for one project)."""
    text = sentence
    pos = 0
    clauses: list[tuple[int, bool]] = []  # where each "the team" ends, its verb plain present
    while m := _WE.search(text, pos):
        the = "The" if m.group(1) == "W" else "the"
        if m.group(2):
            head = f"{text[: m.start()]}{the} {team} {_CONTRACTED[m.group(2)]}"
            text = head + text[m.end() :]
            present = False
        else:
            head = f"{text[: m.start()]}{the} {team}"
            rest, present = _with_verb(text, m.end())
            text = head + rest
        pos = len(head)
        clauses.append((pos, present))
    # Each clause of the team up to the next: the last first, as agreeing adds letters.
    ends = [start for start, _ in clauses[1:]] + [len(text)] if clauses else []
    for (start, present), end in reversed(list(zip(clauses, ends, strict=True))):
        text = text[:start] + _and_verbs(text[start:end], present) + text[end:]

    def ours(m: re.Match[str]) -> str:
        word = m.group(0)
        cap = word[0].isupper()
        before = text[: m.start()].lower()
        named = f"the {team}".lower() in before
        opens = not before.strip() or before.rstrip()[-1] in ".:!?—–-"
        if m.group(2):  # "our team" is the team
            out = f"the {team}"
        elif m.group(1):
            # "its" after the team; "the team's" where a pronoun would lean on nothing
            # ("Our approach to ..."); else "their", as in the authors' voice, which reads
            # with whoever the sentence names ("Together AI has earned ..., validating
            # their commitment").
            out = "its" if named else f"the {team}'s" if opens else "their"
        elif m.group(3):
            out = "its own" if named else f"the {team}'s"
        elif word == "ourselves":
            out = "itself" if named else "themselves"
        else:  # us
            out = f"the {team}"
        return out[0].upper() + out[1:] if cap else out

    return _OUR.sub(ours, text)
