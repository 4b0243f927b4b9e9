"""How long the explainer's title may run: a reader scans a title, and some ran to 26
words ("Together AI adds 40+ image & video models, including Sora 2 and Veo 3, to build
end-to-end multimodal apps with ..."). Past ``TITLE_WORDS`` the title ends where a phrase
of it ends: at a clause's comma or before a preposition, never inside a name ("Claude
for Microsoft Office 365"), a figure ("from 8 to 256"), a list ("latency, timeouts, and
interrupted streaming") or parentheses. A status incident's title whose cut kept its
symptom and lost what it affects is said without who reports it (``affected_first``)."""

from __future__ import annotations

import re

from service.engines.extractive.words import wordset

TITLE_WORDS = 14  # words: a headline a reader takes in at a glance, subject and claim

# Where a phrase of a title can end: before a comma, a dash or a parenthesis that opens an
# aside, or before a preposition that opens a phrase of its own ("... in four dimensions").
_CUT = re.compile(
    r"(?:,|;|\.|\s[—–-])\s|(?<=\w)—(?=\w)|\s(?=\()|\s(?=(?:with|for|in|on|to|via|using|from|by|at|across|into|"
    r"through|while|when|where|after|before|including|without|within|during|as|"
    r"amid)\s)"
    # Before a second question joined on ("How speech models fail where it matters the
    # most | and what to do about it"): the first is a title, cut at "where" it was a stub.
    r"|\s(?=and\s(?:what|how|why|when|where|which|who)\s)"
)
# Words a title does not end on: they leave it hanging ("Elevated errors for the").
_HANGING = wordset(
    "a an the and or but of to for with in on at by from as than its their this that these "
    "those is are was were be been has have had can will may your our how why what"
)
# A figure's baseline goes with it: cut off, "300x faster" says less than the post.
_BASELINE = wordset("than over compared relative versus vs")


def words(title: str) -> int:
    """The words of ``title``: not a dash or an ampersand between them."""
    return sum(1 for w in title.split() if any(c.isalnum() for c in w))


def fits(title: str) -> bool:
    return words(title) <= TITLE_WORDS


def shorten(title: str, most: int = TITLE_WORDS, *, phrases: bool = True) -> str:
    """``title`` cut to at most ``most`` words where one of its phrases ends, the longest
    such; ``title`` itself when it fits or has no such place after its subject's colon.
    Not before a preposition unless ``phrases`` or the words before it have a verb: a
    post's first sentence cut there lost its verb ("A six-month long pilot program | with
    the ... initiative found that ...")."""
    if words(title) <= most:
        return title
    colon = title.find(": ")
    phrases = phrases or colon >= 0  # "Subject: ..." is a headline, not a sentence
    best = ""
    for m in _CUT.finditer(title):
        head = title[: m.start()].rstrip()
        if words(head) > most:
            break
        if not phrases and not m.group(0).strip() and not _has_verb(head):
            continue
        if colon >= 0 and len(title[colon + 2 : m.start()].split()) < 2:
            continue  # the subject and a word: no title
        if _can_end(title, head, m):
            best = head
    return best or _before_of(title, most, colon) or title


def _can_end(title: str, head: str, m: re.Match[str]) -> bool:
    """Whether the title may end at ``head`` (the text before the cut ``m``)."""
    words = head.split()
    last = words[-1].strip("“”\"'‘’").lower() if words else ""
    if not words or last in _HANGING:
        return False
    if head.count("(") != head.count(")") or head.count("“") != head.count("”"):
        return False
    if ". " in head and len(head.rsplit(". ", 1)[1].split()) < _SENTENCE_WORDS:
        return False  # "... you already use. Start": a sentence's first word or two
    if _bare_verb(head):
        return False  # "..., and editing, rolling out": rolling out on what?
    rest = title[m.end() :].lstrip()
    after = rest.split(" ", 1)[0]
    if after.lower() in _BASELINE:
        return False
    cut = m.group(0).strip()
    if not cut:  # before a preposition: not inside a name or a figure
        nxt = rest.split()[1:2]
        named = bool(nxt) and words[-1][:1].isupper() and nxt[0][:1].isupper()
        prep = rest.split(" ", 1)[0].lower()
        if named and prep in _RARE_IN_NAMES and _title_case(title):
            # In title case every word has its capital, a name's or not: "Learns With You
            # | in Virtual 3D Worlds", "Team Up | to Reduce the Cost of AI Inference"
            # end there; a name joined by "for" ("Claude for Microsoft Office 365") or
            # "with" is common, by these rare.
            named = False
        if named and prep != "on":
            # "Claude for Microsoft Office 365", "Mythos 5.1 and Claude Fable"; a name
            # with "on" in it is rare, a place a name runs on is not: kept whole, "Users
            # may experience an increase in error rates in Workspace Agents and ChatGPT
            # Work | on Web and Mobile" was cut before "in", and lost what failed.
            return False
        if nxt and words[-1][-1:].isdigit() and nxt[0][:1].isdigit():
            return False  # "8 to 256"
        if last == "up" and nxt and nxt[0][:1].isdigit():
            return False  # "up to 50%"
    return not _in_list(head, rest, cut == ",")


# Prepositions that seldom join the words of one name ("on" is rare too: ``_can_end``).
_RARE_IN_NAMES = wordset("to in into across through via within during")
_TITLE_CASE_WORDS = 3  # content words a title has, at least, to be told in title case


def _title_case(title: str) -> bool:
    """Whether ``title`` (after its subject's colon) is written in title case: each of
    at least a few content words capitalised."""
    rest = title.split(": ", 1)[-1]
    content = [w for w in re.findall(r"[A-Za-z][\w'’\-]*", rest) if w.lower() not in _HANGING]
    return len(content) >= _TITLE_CASE_WORDS and all(w[:1].isupper() for w in content)


def _before_of(title: str, most: int, colon: int) -> str:
    """``title`` cut before a last "of" phrase, where no other phrase of it ends: "Gemma
    Scope 2: Helping the AI safety community deepen understanding | of complex language
    model behavior". Only a phrase of plain words to the title's end: one that names
    something ("the next generation of Gemini") is what the title is about, and one in
    title case cannot tell."""
    best = ""
    for m in re.finditer(r"\s(?=of\s)", title):
        head, rest = title[: m.start()].rstrip(), title[m.end() + 3 :]
        if words(head) > most:
            break
        if _CUT.search(rest) or re.search(r"[A-Z\d]", rest) or _title_case(title):
            continue
        if colon >= 0 and len(title[colon + 2 : m.start()].split()) < _SENTENCE_WORDS:
            continue
        last = head.rsplit(None, 1)[-1].lower() if head.split() else ""
        if last[:1].isdigit():
            continue  # what a figure is of: "up to 50% | of its time"
        if last and last not in _HANGING and head.count("(") == head.count(")"):
            best = head
    return best


_PARTICLES = wordset("out up down off in back over")


def _bare_verb(head: str) -> bool:
    """Whether ``head`` ends on a clause after its last comma that is a participle alone,
    with its particle ("..., and editing, rolling out", "..., built in"): what it does
    is said by the phrase cut off."""
    if ", " not in head:
        return False
    clause = head.rsplit(", ", 1)[1].split()
    if not 1 <= len(clause) <= 2 or not clause[0].isalpha() or not clause[0].islower():
        return False
    if len(clause) == 1:
        return clause[0].endswith("ing")  # "..., starting"; "Gemma 4, explained" ends
    return clause[0].endswith(("ing", "ed")) and clause[1].lower() in _PARTICLES


_AUXILIARIES = wordset(
    "is are was were be been has have had can could may might will would should must do does did"
)
_DETERMINERS = wordset("a an the its their these those this that of")


def _has_verb(head: str) -> bool:
    """Whether ``head`` has a verb, as far as a word tells: an auxiliary ("Gemma 4 is
    now ..."), or a lower-case word in "-s" or "-ed" past the first, after no determiner
    ("Voice finder helps developers ..."); a plural noun passes too, a guess."""
    ws = [w.strip(",;:()“”\"'").lower() for w in head.split()]
    if any(w in _AUXILIARIES for w in ws):
        return True
    return any(
        w.isalpha() and w.endswith(("s", "ed")) and ws[i - 1] not in _DETERMINERS
        for i, w in enumerate(ws)
        if i > 0 and head.split()[i][:1].islower()
    )


_ITEM_WORDS = 4  # words of a list's item, at most
_SENTENCE_WORDS = 3  # words of a sentence a title may end on, at least


def _in_list(head: str, rest: str, comma: bool) -> bool:
    """Whether a title cut between ``head`` and ``rest`` (at a ``comma``, or before a
    preposition) cuts a list: ``rest`` goes on with short items up to the "and" or "or"
    of its last ("latency, | timeouts, and interrupted streaming"; "search, searching |
    for custom GPTs, ChatGPT user invites, and ..."), or opens on that last one after
    one of its items ("latency, timeouts | , and interrupted streaming"). Not a clause
    after a comma ("..., | and a new replica takes minutes"), nor a phrase that names a
    few ("..., | including Sora 2 and Veo 3, to build ...")."""
    listed = ", " in head
    for i, item in enumerate(re.split(r",\s|(?<=\w)—(?=\w)", rest)):
        if re.match(r"(?:and|or|&)\s", item):
            if i > 0:
                return comma or listed
            return listed and len(head.rsplit(", ", 1)[1].split()) <= _ITEM_WORDS
        if len(item.split()) > _ITEM_WORDS:
            return False
    return False


# Who sees a status incident, before what they see: "Users in APAC region may face", "We're
# seeing" (in the third person, "The team is seeing"). A status title's words for it.
_REPORTER = re.compile(
    r"(?:(?:We['’]re|We are|The team is)\s+(?:seeing|investigating|experiencing)|"
    r"Users?(?:\s+in\s+[\w\s\-]+?)?(?:\s+(?:may|might|could|will|can))?\s+"
    r"(?:face|experience|see|notice|encounter|be seeing))\s+(?=[a-z])"
)
# Where a status title names what is affected: "increased error in ChatGPT, Work, ...".
_AFFECTED = re.compile(r"\s(?:in|across|for|on|affecting|with)\s")


def _names(text: str) -> bool:
    """Whether ``text`` names a product or a model: a capital past its first word or a
    figure ("ChatGPT", "gpt 5.1 mini")."""
    ws = text.split()
    return any(c.isdigit() for c in text) or any(w[:1].isupper() for w in ws[1:])


def affected_first(title: str, short: str, most: int = TITLE_WORDS) -> str:
    """A status incident's title too long (``title``, cut to ``short``) said without who
    reports it, where the cut kept the symptom and lost what it affects ("Users in APAC
    region may face increased error | in ChatGPT, Work, ..."): the product or model is
    what a reader of a status page looks for. The symptom and what it affects when they
    fit ("Increased error in ChatGPT, ..."), else what it affects, then the symptom
    ("gpt 5.1 mini model and gpt 4.1 mini: Elevated latency, timeouts, and ..."); ""
    when neither fits or the cut kept a name."""
    m = _REPORTER.match(title)
    if not m or _names(short[m.end() :]) or not _names(title[len(short) :]):
        return ""
    rest = title[m.end() :]
    rest = rest[:1].upper() + rest[1:]
    if words(rest) <= most:
        return rest
    for p in _AFFECTED.finditer(rest):
        affected, symptom = rest[p.end() :], rest[: p.start()]
        if _names(" " + affected) and words(affected) + words(symptom) <= most:
            return f"{affected}: {symptom}"
    return ""
