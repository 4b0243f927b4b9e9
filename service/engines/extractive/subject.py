"""The explainer title's subject: the name the post is about (FlyDSL, Shopify, Claude Opus
5.5), the one its title or its opening uses most; none rather than a word that names
nothing ("All", "Operational", "UTC", "AI-native", "Faster" of "Faster kernels")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.engines.extractive.words import STOPWORDS, is_title_word, wordset

# The colon that ends a title's subject ("FlyDSL: ..."), not one inside a time or a ratio
# ("Aug 31, 20:36 UTC Resolved", "a 3:1 mix"): splitting those changed the figures.
SUBJECT_COLON = re.compile(r":(?=\s)")

GENERIC_NAMES = wordset(
    "AI ML LLM LLMs GPU GPUs CPU CPUs API APIs TL DR Today Here Figure Table The This"
)

# Capitalised or upper-case words that name no subject however often a post writes them:
# a status page's labels, timestamps and determiners ("Status: Resolved", "Oct 7, 21:44
# UTC", "All impacted services ..."), units, generic technical acronyms. Each made an
# "All: ...", "Operational: ..." or "UTC: ..." title of a status update.
_NOT_NAMES = wordset(
    """UTC GMT PT PST PDT ET EST EDT CT CST CDT MT MST BST CET CEST IST JST KST AEST
    January February March April May June July August September October November December
    Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    KB MB GB TB PB KiB MiB GiB TiB ms ns GHz MHz FLOPS TFLOPS PFLOPS TPS QPS FPS RPS
    Status Operational Resolved Investigating Monitoring Identified Update Degraded Outage
    Maintenance Scheduled Completed Postmortem Incident
    All Some Any Every Each Many Most Several Both Other One Two Three Four Five
    SDK SDKs KV SLO SLOs SLA SLAs UI UX URL URLs"""
)

# A site's name after the title ("Faster kernels | Example Blog", "... - The Acme Blog"):
# the page's <title>, not the post's.
_SITE_SUFFIX = re.compile(r"\s+[|·]\s+[^|·]{1,60}$")
_DASH_SITE_SUFFIX = re.compile(
    r"\s+[-–—]\s+((?:[A-Z][\w.&'’]*\s+){0,3}(?:Blog|News|Docs|Documentation|Newsroom))$"
)

_CANDIDATE = re.compile(r"(?<![\w\-])[A-Za-z][\w\-.+]*[\w+]")


def strip_site_name(title: str) -> str:
    """``title`` without a trailing site name ("Faster kernels | Example Blog")."""
    stripped = _DASH_SITE_SUFFIX.sub("", _SITE_SUFFIX.sub("", title))
    return stripped if stripped.strip() else title


def names_something(phrase: str) -> bool:
    """ "PyTorch 2.14" or "Gemma" names a subject; "The problem" does not."""
    words = phrase.split()
    if not 0 < len(words) <= 3 or words[0].lower() in STOPWORDS:
        return False
    return any(
        any(ch.isdigit() for ch in w) or any(ch.isupper() for ch in w[1:]) or w[:1].isupper()
        for w in words
    )


def is_name(word: str, text: str, *, placed: bool) -> bool:
    """Whether ``word`` can name a post's subject: not a stop word, a generic term, a
    label, unit or time zone (``_NOT_NAMES``); not a compound adjective ("AI-native",
    "multi-GPU", "OpenAI-compatible"); and, written as an ordinary capitalised word, not
    one ``text`` (the post) writes in lower case more often than capitalised mid-sentence
    ("Cloud models", "Conversations"), and one that is either ``placed`` where only a
    name is capitalised (mid-sentence) or written so somewhere in the post: a word
    capitalised only where a sentence, a line, a label ("(Operational)") or a title in
    Title Case starts ("Piloting", "Securing") is no name."""
    if word.lower() in STOPWORDS or word in GENERIC_NAMES or word in _NOT_NAMES:
        return False
    parts = word.split("-")
    if len(parts) > 1 and not any(ch.isdigit() for ch in word):
        plain = [p for p in parts if p.isalpha() and p.islower()]
        if plain and len(plain) < len(parts):
            return False  # "AI-native": an adjective made of a name and a word
    if not is_title_word(word):
        return True  # PyTorch, vLLM, GEMM, FP8, Qwen3-VL
    # Mid-sentence: after a word, a figure, a comma or a closing parenthesis on the same
    # line ("NVIDIA Nemotron", "on Claude"), not after ". ", ": ", "(" or a line start.
    mid = re.findall(rf"(?<=[\w,;)’'] )({re.escape(word)})(?![\w\-])", text, re.IGNORECASE)
    named = sum(1 for w in mid if w == word)
    return named >= len(mid) - named and (placed or named > 0)


def _count(word: str, text: str) -> int:
    """How often ``text`` writes ``word`` whole ("GLM-5.3", not the "GLM-5" of it)."""
    return len(re.findall(rf"(?<![\w\-.]){re.escape(word)}(?![\w\-]|\.\w)", text))


# Operating systems and device platforms: where the thing a post is about runs ("Claude
# Cowork on Windows", "Ollama on macOS", "MLX on Apple silicon"), a setting, never the
# subject (it made "Windows: Degraded functionality for Claude Cowork").
_PLATFORMS = wordset("Windows macOS OSX Linux Ubuntu iOS iPadOS watchOS visionOS Android ChromeOS")


def _setting(word: str, whole: str) -> bool:
    """Whether ``word`` is a platform the post's subject runs on: an operating system,
    or a maker the post (``whole``) names for its chips at least half the times it
    names it ("Apple silicon")."""
    if word in _PLATFORMS:
        return True
    total = _count(word, whole)
    chips = re.findall(rf"(?<![\w\-]){re.escape(word)}\s+[Ss]ilicon\b", whole)
    return total > 0 and 2 * len(chips) >= total


def _spells_generic(name: str) -> bool:
    """Whether ``name``'s initials spell a generic acronym: "Large Language Models" is
    "LLMs", as generic as the acronym."""
    words = name.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return False
    initials = "".join(w[0] for w in words)
    return initials in GENERIC_NAMES or (
        words[-1].endswith("s") and initials + "s" in GENERIC_NAMES
    )


def _tail(word: str, text: str) -> bool:
    """Whether the post writes ``word`` mostly as the last part of a longer name, after a
    version, an acronym or (a capitalised word) another name ("GLM-5.3 Flash", "DeepSeek
    V4 Pro", "IBM Cloud", "Provisioned Throughput"): a variant or a part of what is
    named, not the subject."""
    before = [
        m.group(1) for m in re.finditer(rf"(\S*)\s(?<![\w\-.]){re.escape(word)}(?![\w\-])", text)
    ]
    total = _count(word, text)
    tails = sum(
        1
        for b in before
        if re.search(r"[A-Za-z]\d|\d\.\d", b)  # a version, not a count ("904 DeepSWE runs")
        or re.fullmatch(r"[A-Z]{2,}", b)
        or (is_title_word(word) and is_title_word(b) and b.lower() not in STOPWORDS)
    )
    return total > 0 and tails * 2 > total


def _with_model(word: str, text: str) -> str:
    """A variant's name with the model it is a variant of, as the post first writes them
    together ("Flash" -> "GLM-5.3 Flash", "Pro" -> "DeepSeek V4 Pro"): alone, the word
    names no one thing."""
    if not is_title_word(word):
        return word
    m = re.search(
        rf"(?:([A-Z][\w\-]*) )?([\w.\-]*(?:[A-Za-z]\d|\d\.\d)[\w.\-]*) {re.escape(word)}(?![\w\-])",
        text,
    )
    if not m:
        return word
    head = m.group(1) if m.group(1) and m.group(1).lower() not in STOPWORDS else ""
    return " ".join(p for p in (head, m.group(2), word) if p)


def _compared(title: str) -> set[str]:
    """The words of the names a title compares ("GLM-5.3 vs. Claude Fable 5"): each is
    one side, not the subject."""
    words = title.split()
    out: set[str] = set()
    for i, w in enumerate(words):
        if w.lower() not in ("vs", "vs.", "versus"):
            continue
        j = i - 1  # the word before "vs", and the capitalised words and figures before it
        while j >= 0:
            out.add(words[j].rstrip(",.;:"))
            j -= 1
            if j < 0 or not (words[j][:1].isupper() or words[j][:1].isdigit()):
                break
        for w2 in words[i + 1 :]:
            if not (w2[:1].isupper() or w2[:1].isdigit()):
                break
            out.add(w2.rstrip(",.;:"))
    return out


def _listed(title: str) -> set[str]:
    """The words of the short middle and last items of a list the title gives ("... in
    ChatGPT, Work, image generation, file upload, Voice, and Codex Cloud"): each is one
    of several, not the subject."""
    items = [i.strip() for i in title.split(",")]
    if len(items) < 3:
        return set()
    last = re.sub(r"^(?:and|or|&)\s+", "", items[-1])
    members = [*items[1:-1], last]
    if any(len(i.split()) > 3 for i in members):
        return set()  # clauses, not a list of names
    return {w for i in members for w in i.split()}


def _after_a_name(title: str, at: int) -> bool:
    """Whether the title's word at ``at``, an ordinary capitalised word, follows another
    past the title's first ("Elevated errors for Workspace Agent"): in a title in
    sentence case, the end of a longer name. A name of its own spelling ("NVIDIA
    Nemotron") stays a candidate."""
    before = title[:at].split()
    word = re.match(r"[\w\-]+", title[at:])
    return (
        len(before) >= 2  # the first word is capitalised by its place ("Faster Gemma 4")
        and word is not None
        and is_title_word(word.group(0))
        and is_title_word(before[-1])
        and before[-1].lower() not in STOPWORDS
    )


def subject(title: str, intro: Sequence[str], text: str, whole: str) -> str:
    """The post's subject: a short title prefix before ':', else the one "How X ..."
    tells of, else the name the post uses most (PyTorch, FlyDSL, ExecuTorch) among the
    title's names and those its opening sentences (``intro``) write mid-sentence, whole
    as ``whole`` (the post's title and ``text``) writes it; "" when none names anything."""
    left = SUBJECT_COLON.split(title, 1)[0].strip() if SUBJECT_COLON.search(title) else ""
    if left and names_something(left):
        return left
    m = re.search(r"\(([A-Za-z][\w\-]*[A-Z][\w\-]*)\)", title)
    if m and m.group(1) not in GENERIC_NAMES and len(title[: m.start()].split()) <= 6:
        # Near the title's start, where its subject is named: further on, a term the
        # title defines in passing ("... via multi-token prediction (MTP), powered by").
        return m.group(1)  # "Speculator System (ATLAS): ...": the title's own short name
    m = re.match(
        r"(?:(?:Learn|See|Discover|Read)\s+)?(?i:how|why|when|where)\s+([A-Z][\w\-]+)"
        r"(\s+[A-Z][\w\-]*)?\s+[a-z]",
        title,
    )
    if m and is_name(m.group(1), text, placed=True):
        # "How Shopify built ...": the one who did it, named as the title names it
        # ("How Together AI built ...") when the post names it so too.
        two = m.group(1) + (m.group(2) or "")
        return two if m.group(2) and _count(two, text) else whole_name(m.group(1), whole)

    m = re.match(r"([A-Z][\w\-.]*(?:\s+[A-Z][\w\-.]*){1,2})\s+(?:now\s+)?([a-z]+s)\s", title)
    if (
        m
        and m.group(2) not in STOPWORDS | {"vs"}
        and is_name(m.group(1).split()[0], text, placed=True)
        and (_count(m.group(1), whole) >= 2 or m.group(1).rsplit(" ", 1)[1] in _PART.split("|"))
    ):
        # "Together Evaluations now supports ...": the title says what the name it opens
        # with does, a name of two words or three (one, "Elevated errors", is a word)
        # the post writes again or ends on "AI", "API" or "SDK" ("Together AI expands
        # ..."); not a term its excerpt says once ("OpenAI", "LoRA").
        return m.group(1)
    # In a title in sentence case ("Elevated errors for Sora API"), a capitalised word
    # past the first is a name; in Title Case every word is capitalised.
    sentence_cased = any(
        w[0].islower()
        for w in re.findall(r"[A-Za-z][\w'’\-]*", title)[1:]
        if len(w) > 3 and w.lower() not in STOPWORDS
    )

    compared = _compared(title) | _listed(title)
    # Each reads the whole post: asked once a word, not once an occurrence ("Word Word
    # ..." 20,000 times took a minute, each of the intro's words reading all the text).
    tails: dict[str, bool] = {}
    names: dict[tuple[str, bool], bool] = {}
    counts: dict[str, int] = {}

    def count(w: str) -> int:
        if w not in counts:
            counts[w] = _count(w, text)
        return counts[w]

    def candidates(source: str, in_title: bool) -> list[str]:
        found = []
        for m in _CANDIDATE.finditer(source):
            w = m.group(0)
            mixed = any(c.isupper() for c in w[1:]) or (
                w[0].islower() and any(c.isupper() for c in w)
            )
            if not (mixed or w[0].isupper()):
                continue
            starts = m.start() == 0 or source[: m.start()].rstrip()[-1:] in ".!?:(-–—•*"
            if in_title:
                # A title's capitalised word is a name past its first word in sentence
                # case, and wherever it is given a version, an acronym, a possessive or
                # a run of names ("Llama 3.2", "Sora API", "Ollama's", "Gemini Robotics
                # ER 2"); a title of one word names its subject.
                after = source[m.end() :]
                tagged = re.match(r"\s+\d|\s+[A-Z]{2,}\b|['’]s\b", after) is not None
                run = sentence_cased and re.match(r"\s+[A-Z][a-z]", after) is not None
                acronym = re.match(r"\s+([A-Z]{2,})\b", after)
                pair = re.escape(f"{w} {acronym.group(1)}") if acronym else ""
                if starts and acronym and not re.search(rf"(?<=[\w,;)] ){pair}\b", text):
                    # "Together AI brings ..." names Together AI where the post writes
                    # it mid-sentence too; "Production STT and TTS ..." names nothing.
                    tagged = False
                placed = (
                    (sentence_cased and (mixed or not starts))
                    or tagged
                    or run
                    or source.strip() == w
                )
            else:
                tagged = False
                placed = not starts or mixed  # "Co-Scientist unites ...": a name anywhere
            if w in compared:
                continue  # "GLM-5.3 vs. Claude Fable 5": one side, not the subject
            if in_title and sentence_cased and _after_a_name(source, m.start()):
                continue  # "Agent" of "Workspace Agent": a part of the name, not it
            if w not in tails:
                tails[w] = _tail(w, text)
            if not (in_title and tagged) and tails[w]:
                continue  # "Flash" of "GLM-5.3 Flash", "Cloud" of "IBM Cloud"
            if (mixed or in_title or placed) and (w, placed) not in names:
                names[w, placed] = is_name(w, text, placed=placed)
            if (mixed or in_title or placed) and names[w, placed]:
                found.append(w)
        return found

    def score(w: str) -> float:
        mixed = any(c.isupper() for c in w[1:])
        return count(w) * (1.5 if mixed else 1.0) * (0.6 if w.isupper() else 1.0)

    pool = candidates(title, in_title=True)
    seen = 0
    for i, sentence in enumerate(intro):  # each on its own: its first word starts a sentence
        if seen >= 1500:
            break
        # A capitalised word the title does not give is the post's subject if the post
        # comes back to it, or if its first sentence opens with it ("Google DeepMind and
        # Isomorphic Labs are sharing ..."), not a word it mentions once ("... for Deaf
        # users"); a name no word is spelt like (JetBrains, LLaVA) needs no such proof.
        opening = " ".join(sentence.split()[:4]) if i == 0 else ""
        pool += [
            w
            for w in candidates(sentence[: 1500 - seen], in_title=False)
            if count(w) >= 2 or w in opening or any(c.isupper() for c in w[1:])
        ]
        seen += len(sentence) + 1
    settings = {w: _setting(w, whole) for w in set(pool)}
    pool = [w for w in pool if not settings[w]]  # "on Windows", "on Apple silicon"
    first = {w: i for i, w in reversed(list(enumerate(pool)))}
    best = max(pool, key=lambda w: (score(w), -first[w]), default="")
    if not best or score(best) < 1:
        return ""
    best = whole_name(_with_model(best, text), whole)
    if _spells_generic(best):
        return ""  # "Large Language Models (LLMs)"
    for _ in range(3):
        # "Together AI brings ...": the name the title opens with, whole, when the post
        # writes it so at least as often as not, or with a generic acronym that ends a
        # name ("Together AI at ICML 2026": "Together" alone is half of it).
        m = re.match(rf"{re.escape(best)}( [A-Z][\w\-]*)", title)
        if not m or (
            2 * _count(best + m.group(1), text) < max(1, _count(best, text))
            and m.group(1).strip() not in _PART.split("|")
        ):
            break
        best += m.group(1)
    # A name the title gives with a generic acronym that ends it, further on than its
    # start ("Elevated latency in the Responses API"), is named with it where the post
    # (``whole``: a status page lists the component as "Responses") writes it so at least
    # as often as not: "Responses" alone is a common word.
    m = re.search(rf"(?<![\w\-]){re.escape(best)}( (?:{_PART}))(?![\w\-])", title)
    if m and 2 * _count(best + m.group(1), whole) >= _count(best, whole):
        best += m.group(1)
    # A version names what it follows, a plain word included ("Ollama Python library
    # 0.4" was "Ollama Python: Library 0.4 ...").
    m = re.search(
        rf"{re.escape(best)}(\s+[a-z][\w\-]*(?=\s+\d+\.\d))?\s+(\d+(?:\.\d+)*[a-z]?)(?![\w.])",
        title,
    )
    if m and m.group(1) and m.group(1).strip() in STOPWORDS:
        m = None
    return f"{best}{m.group(1) or ''} {m.group(2)}" if m else best


# Generic acronyms that end a name the post always writes with them ("Admin API",
# "Together AI"): alone, "Admin" and "Together" name a fragment.
_PART = "API|SDK|AI"


def whole_name(word: str, text: str) -> str:
    """``word`` with the capitalised words that follow it in ``text`` each of the two or
    more times it is written (a name of several words: "Northern" -> "Northern Ireland",
    "Hugging" -> "Hugging Face", "Admin" -> "Admin API")."""
    for _ in range(4):
        after = [
            m.group(1)
            for m in re.finditer(
                rf"(?<![\w\-]){re.escape(word)}(?![\w\-])( [A-Z][a-z]+| (?:{_PART})(?![\w\-]))?",
                text,
            )
        ]
        if len(after) < 2 or len(set(after)) != 1:
            break
        nxt = after[0]
        if not nxt or nxt.strip().lower() in STOPWORDS:
            break
        if nxt.strip() in GENERIC_NAMES and nxt.strip() not in _PART.split("|"):
            break
        word += nxt
    return word
