"""How the explainer's title names its subject: once, and whole. The subject is not put
before a clause that opens with it, not said again at the title's end, mid-title, as
its possessive or as a modifier of its own things, and is its longer name where the
title gives one the post writes ("Google DeepMind", "Gemini Deep Think")."""

from __future__ import annotations

import re

from service.engines.extractive.subject import is_name
from service.engines.extractive.words import STOPWORDS, is_title_word

# Words that join more to the subject the title opens with ("Together AI and Meta partner
# ...", "Muse Glimmer from Meta ... is now available"), and the verb of a title that is a
# sentence ("Llama 3 is not very censored"): cut after the subject, the rest read "And
# Meta partner ...", "Is not very censored", with no one before the word.
_JOINS = re.compile(
    r"(?:and|or|&|from|of|vs\.?|versus|plus|is|are|was|were|has|have|had|will|can|does)\b",
    re.IGNORECASE,
)


def longer_name(subject: str, phrase: str, text: str) -> bool:
    """Whether ``phrase`` is the subject's longer name: one or two more capitalised
    words ("Llama 3.2 Vision", "MiniMax Speech 2.6 Turbo") the post (``text``) writes
    so, named whole as the subject (it led "Llama 3.2: Llama 3.2 Vision"); not "PyTorch
    2.14 Release Blog", words the post does not give as a name."""
    if not phrase.startswith(subject + " "):
        return False
    more = phrase[len(subject) + 1 :].split()
    return 0 < len(more) <= 2 and all(is_title_word(w) for w in more) and phrase in text


# A headline's verb after its subject ("Together AI welcomes ...", "Google announces
# ...", "Ollama now supports ..."): cut there, "Ollama: Now supports AMD graphics cards"
# read as a clause with no one before its verb. A closed list of the verbs headlines
# announce with: a word ending in "s" is as often a plural ("FedRAMP workspaces and API
# orgs ..."). After an adverb of news ("now", "also"), a verb of any spelling in "s".
_HEADLINE_VERB = re.compile(
    r"(?:(?:now|also|officially|finally|today|just|newly)\s+[a-z][\w\-]*[^s\W]s|"
    r"(?:(?:now|also|officially|finally|today|just|newly)\s+)?"
    r"(?:announces|brings|welcomes|supports|adds|launches|introduces|releases|unveils|"
    r"expands|joins|acquires|ships|raises|powers|enables|delivers|achieves|reaches|"
    r"becomes|offers|provides|extends|improves|cuts|boosts|accelerates|debuts|"
    r"integrates|opens|outperforms|beats|unites|teams|partners|appoints|hires|wins|"
    r"open-sources|doubles|arrives|comes|goes|gets|makes|lets|helps|turns))\b",
    re.IGNORECASE,
)


def _goes_on(subject: str, rest: str, text: str) -> bool:
    """Whether the title's ``rest`` after its opening ``subject`` still belongs to what
    the subject starts: a joining word or a verb ("and Meta partner ...", "is now ...",
    "welcomes ..."), or a longer name the post writes ("PyTorch Conference North
    America", "PyTorch Ecosystem Landscape"): cut there, "PyTorch: Conference North
    America Announces ..." split a name in two."""
    if _JOINS.match(rest) or _HEADLINE_VERB.match(rest):
        return True
    nxt = re.match(r"[A-Z][\w\-]*", rest)
    return nxt is not None and f"{subject} {nxt.group(0)}" in text


def _count(name: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", text))


def _named_before(subject: str, phrase: str, whole: str) -> str:
    """The subject's longer name that ``phrase`` gives with one or two names before it,
    written so at least half as often as the subject alone in ``whole`` (the post's
    title and text): "Google DeepMind" for "DeepMind", "NVIDIA Nemotron 3.5", "Gemini
    Deep Think"; not "Core PyTorch" of a post that says "PyTorch" ten times as often.
    A capitalised word is a name where ``whole`` writes it so mid-sentence, where it is
    before every subject ``whole`` writes ("Google DeepMind and the DOE partner ...")
    or where the title is the name and nothing else ("Google Gemma 2"); "Introducing
    Gemini 3.5" and "Faster Gemma 4" open a title with a word that names nothing."""
    m = re.search(rf"(?<![\w\-]){re.escape(subject)}(?![\w\-])", phrase)
    if not m:
        return subject
    before = phrase[: m.start()].split()
    alone = phrase.strip() == " ".join([*before[-1:], subject])
    name = subject
    for word in reversed(before[-2:]):
        longer = f"{word} {name}"
        named = (
            not is_title_word(word)
            or is_name(word, whole, placed=False)
            or _count(longer, whole) == _count(subject, whole) > 1
        )
        if alone and not named:
            named = not re.search(r"(?:ing|ed)$", word) and not _HEADLINE_VERB.match(word)
        if (
            word.lower() in STOPWORDS
            or not word[:1].isupper()
            or not named
            or 2 * _count(longer, whole) < _count(subject, whole)
        ):
            break
        name = longer
    return name


# What a family name is said of: cut, "to natively serve Kimi models" read "to natively
# serve models" (whose?), the family dropped from the title it leads.
_ITS_KIND = frozenset(("model", "models", "family", "series", "checkpoints", "weights"))


def _modifier(subject: str, phrase: str) -> re.Match[str] | None:
    """The subject said as a modifier of what is its own, past the phrase's first word
    ("for some ChatGPT web users", "Elevated Codex API authentication errors", "Run Code
    Llama locally"): once the subject leads the title, its name there is said twice. Not
    one of several ("GitHub-dependent ChatGPT and Codex workflows"), nor before a verb
    or a word that joins more ("How Shopify built ...", "ChatGPT is down"), nor where it
    is what a participle follows ("rolling out on Together AI starting with ...")."""
    m = re.search(rf"(?<=\s){re.escape(subject)}\s+(?=(?-i:[a-z])[\w\-]*)", phrase)
    if not m or re.search(
        r"(?:\b(?:and|or|&|how|why|when|where)|,)\s*$", phrase[: m.start()], re.I
    ):
        return None
    nxt = phrase[m.end() :].split(" ", 1)[0]
    if (
        nxt.lower() in STOPWORDS
        or nxt.lower().rstrip(",;:") in _ITS_KIND
        or nxt.endswith("ing")
        or _JOINS.fullmatch(nxt)
        or _HEADLINE_VERB.match(nxt)
    ):
        return None
    return m


def name_once(subject: str, new: str, text: str, whole: str) -> tuple[str, str, bool]:
    """The title's subject and what it adds (``new``), the subject named once (``text``:
    the post's; ``whole``: its title and text); and whether ``new`` is then a clause that
    names the subject first and stands as the whole title (not put after a colon)."""
    subject = _named_before(subject, new, whole)
    # The subject's longer name at the title's end ("Intelligent transcription with
    # Gemini 3.5 Transcribe") or all it introduces ("Introducing Gemini 3.5 Flash
    # Cyber") is the subject, said once: "Gemini 3.5: ... with Gemini 3.5 Transcribe"
    # named it twice, the second time as more than the first.
    named = rf"({re.escape(subject)}(?:\s+[^\s,;:]+){{1,2}})"
    end = re.search(rf"\s*,?\s*\b(?:with|in|on|for|from|by|using|via|to|at)\s+{named}\s*$", new)
    intro = re.fullmatch(rf"(?i:introducing|announcing|meet)\s+{named}", new)
    for m, cut in ((end, end.start() if end else 0), (intro, 0)):
        if m and longer_name(subject, m.group(1), text):
            return m.group(1), new[:cut], False
    # A title whose words after the subject go on from it ("Llama 3 is not very
    # censored", "PyTorch Conference North America announces ...") is a clause that
    # names its subject first: it stands as the title, the subject not put before it
    # again ("Llama 3: Llama 3 is not very censored").
    pat = re.compile(
        rf"\s*,?\s*\b(with|in|on|for|from|by|using|via|and|to|at|affecting)\s+(the\s+)?"
        rf"{re.escape(subject)}\s*$"
    )
    # The same phrase mid-title, before another ("Elevated latency on the Claude API
    # for some users", "... for Claude Cowork on Windows"): the subject leads the
    # title, the rest need not name it again. Not before "for" and a name: "Claude
    # for Microsoft Office 365" is a longer name, not "Claude" used somewhere.
    mid = re.compile(
        rf"\s*,?\s*\b(with|in|on|for|from|by|using|via|to|at)\s+(the\s+)?"
        rf"{re.escape(subject)}(?=\s+(?:(?:for|on|in|with|at|from|by|via|using)\s+[a-z]|"
        rf"(?:on|in|at)\s+[A-Z]))"
    )
    # Logging into the subject is logging in, once the subject leads the title.
    login = re.compile(rf"\b(log(?:ging)?|sign(?:ing)?)\s+into\s+(the\s+)?{re.escape(subject)}$")
    possessive = re.match(rf"{re.escape(subject)}['’]s\s+(?=\w)", new)
    if pat.search(new):
        new = pat.sub("", new)
    elif login.search(new):
        new = login.sub(r"\1 in", new)
    elif mid.search(new):
        new = mid.sub("", new, count=1)
    elif possessive:
        new = new[possessive.end() :]  # "Ollama's new app": "Ollama: New app"
    elif longer_name(subject, new, text):
        subject, new = new, ""
    elif new.startswith(subject + " "):
        rest = new[len(subject) + 1 :]
        if _goes_on(subject, rest, text):
            # A verb in Title Case stays so ("Together AI Brings ..."): the title's
            # case is the post's throughout (``title_case``).
            return subject, new, True
        new = rest
    elif modifier := _modifier(subject, new):
        opener = re.match(r"[A-Z][\w\-.]*\s+", new)
        if opener and _goes_on("", new[opener.end() :], ""):
            # Another name and its verb ("Ollama is now available as an official Docker
            # image"): the title is a clause, the subject a detail of it; cut, it read
            # "Docker: Ollama is now available as an official image".
            return subject, new, True
        new = new[: modifier.start()] + new[modifier.end() :]
    else:
        new = re.sub(
            rf"^(how|why|when|where)\s+{re.escape(subject)}\s+(?=(?-i:[a-z]))",
            r"\1 it ",
            new,
            flags=re.I,
        )
    if _names_within(subject, new):
        new = _ANNOUNCING.sub("", new)
        if re.fullmatch(rf"(?:the\s+)?{re.escape(subject)}[?!.]*", new, re.IGNORECASE):
            return subject, "", False  # "Introducing Gemini": all it says is the subject
        return subject, new, True
    said = re.search(rf"(?<![\w\-]){re.escape(subject)}(?![\w\-])", new)
    others = (new[: said.start()] + new[said.end() :]).split() if said else []
    if len(others) >= 2 and not _DATED.match(new):
        # Still named in what the title adds, where no rule above could cut it ("Faster
        # Gemma 4 on MLX", "How to prompt Code Llama", "Elevated errors for Claude Mythos
        # 5.1 and Claude Fable 5.1"): that is the title, a clause that names its subject;
        # put after it again, the subject was said twice ("Gemma 4: Faster Gemma 4 ...").
        # Not a title that is the subject and a word or none ("Llama 3", "Why ExecuTorch?"),
        # nor a status line's time, which reads as a log line at a title's head.
        return subject, new, True
    return subject, new, False


# A title opening on a date or a time ("Aug 31, 20:36 UTC resolved - ...").
_DATED = re.compile(
    r"(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d|\d{1,2}:\d{2}\b)"
)


def names_listed(phrase: str) -> bool:
    """Whether ``phrase`` is a bare list of names and nothing else ("Gemini 3.6 Flash,
    3.5 Flash-Lite, and 3.5 Flash Cyber", once its "Introducing" is cut): as a title it
    says what, not what of it; it needs what the post says after it."""
    items = [x for x in re.split(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+", phrase) if x]
    return len(items) >= 2 and all(
        len(item.split()) <= _LISTED_WORDS
        and all(w[:1].isdigit() or is_title_word(w) for w in item.split())
        for item in items
    )


_LISTED_WORDS = 4  # words of one name of a list, at most


# A title's opening that announces what it names ("Announcing the Together AI Startup
# Accelerator, ..."): the post speaks, the explainer reports what is announced.
_ANNOUNCING = re.compile(r"^(?:announcing|introducing|meet)\s+(?=\S)", re.IGNORECASE)


def _names_within(subject: str, new: str) -> bool:
    """Whether ``new`` names the subject in a phrase it cannot be cut from: what an
    opening "Announcing" announces ("Announcing native availability of NVIDIA Nemotron 3
    Nano, ..."), or a longer name of it that qualifies a noun ("Two enterprise-grade
    Rime TTS models"). Put before such a title, the subject is said twice ("Rime: Two
    enterprise-grade Rime TTS models ..."): the title is the clause, the subject in it."""
    at = re.search(rf"(?<![\w\-]){re.escape(subject)}(?![\w\-])", new)
    if not at:
        return False
    if _ANNOUNCING.match(new):
        return True
    # The subject, one or two capitalised words, and the noun they qualify: not a verb
    # or a word that joins ("the issue affecting Claude Code has been resolved" stays
    # led by the service), not a longer name in Title Case ("Core PyTorch Sessions at").
    m = re.match(r"(?:\s+[A-Z][\w\-]*){1,2}\s+([a-z][\w\-]*)", new[at.end() :])
    if not m:
        return False
    noun = m.group(1)
    return not (
        noun in STOPWORDS
        or _JOINS.fullmatch(noun)
        or _HEADLINE_VERB.match(noun)
        or re.search(r"(?:ing|ed)$", noun)
    )
