"""Names and nouns: what an explainer says a number is about, and the patterns that
find them in the source."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from service.frozen import slot_init
from service.numbers import Number, fold

_NOT_NAMES = frozenset({"I", "A", "An", "The"})
_SEP = r"[\x00\s_\-]+"  # folded text has NULs, raw text spaces, hyphens, underscores


@slot_init
@dataclass(frozen=True, slots=True)
class Name:
    """A name of an explainer sentence the source knows: where it stands, its folded key
    and the pattern that finds it."""

    start: int
    end: int
    key: str
    pattern: re.Pattern[str]

    def __hash__(self) -> int:
        # Equal names have equal places and keys: the pattern (a function of the key)
        # is left out, as hashing a compiled pattern hashes its whole code, and the
        # check dedupes names sentence by sentence.
        return hash((self.start, self.end, self.key))


# Plain hardware nouns a post states once in a paragraph, before its figures
# ("FlexAttention on AMD's RDNA3 GPUs ... The result is roughly 2-8x lower latency"):
# what they run on, though their own clause does not repeat it (not one stated after
# them: "the Triton autotune search ... on MI300X GPU" is no "GPUs autotuning search";
# keys, folded: "GPUs" is "gpu").
HARDWARE_NOUNS = frozenset({"gpu", "cpu", "tpu", "npu", "node"})

# Chip vendors (folded keys). A vendor's name right before a product's ("AMD's RDNA3
# GPUs", "NVIDIA H100") says whose the product is, not where its figure was measured:
# the product binds the figure, and the vendor, which a post may never write next to
# it ("#### FlexAttention Tile Configs for RDNA3", AMD in another sentence), is no name
# the source must say there. Before a plain hardware noun ("AMD GPUs") it is the name.
VENDORS = frozenset({"amd", "nvidia", "intel", "apple", "qualcomm", "google", "arm"})
_OWNER = re.compile(r"(?:['\u2019]s)?\s+")


def setting_noun(
    s: str, names: Sequence[Name], x: Name, figure: int, nums: Sequence[Number]
) -> bool:
    """Whether name ``x`` of sentence ``s`` is a plain hardware noun that says where the
    figure at ``figure`` ran, which a source may state once, earlier in its paragraph:
    one before the figure ("On RDNA 3 GPUs, ... 2-8x"), or after it right after a
    product's name ("2-8x faster on RDNA3 GPUs"); not after a figure and a product
    ("8x MI325X GPUs": a count of them; ``nums``: the sentence's figures)."""
    if x.key not in HARDWARE_NOUNS:
        return False
    if x.start < figure:
        return True
    product = next((p for p in names if p.end + 1 == x.start and s[p.end] == " "), None)
    if product is None or product.key in HARDWARE_NOUNS:
        return False
    before = s[: product.start].rstrip()
    return not before[-1:].isdigit() and not any(m.end == len(before) for m in nums)


def without_vendors(s: str, names: list[Name], source: str = "") -> list[Name]:
    """``names`` (of sentence ``s``, in order) but a vendor's right before a product's,
    unless the ``source`` (its lower-case text) writes that product after another
    vendor's name (:func:`_other_vendor`)."""
    if not any(x.key in VENDORS for x in names):
        return names  # most sentences: no vendor, no new list
    out = []
    for x, after in itertools.zip_longest(names, names[1:]):
        if (
            after is not None
            and x.key in VENDORS
            and after.key not in VENDORS
            and after.key not in HARDWARE_NOUNS
            and _OWNER.fullmatch(s, x.end, after.start)
            and not _other_vendor(source, x.key, after)
        ):
            continue
        out.append(x)
    return out


_VENDOR_BEFORE = re.compile(r"(?<![a-z])(" + "|".join(sorted(VENDORS)) + r")(?:['\u2019]s)?\s+$")


def _other_vendor(source: str, vendor: str, product: Name) -> bool:
    """Whether ``source`` writes ``product`` right after a vendor's name other than
    ``vendor`` ("NVIDIA H100" where the explainer says "AMD's H100"): the explainer's
    vendor is then a name of its figure, which the source must say there (the figure
    passed, the vendor dropped). Read only for a vendor before a product (few sentences)."""
    for m in product.pattern.finditer(source):
        found = _VENDOR_BEFORE.search(source, max(0, m.start() - 12), m.start())
        if found is not None and found.group(1) != vendor:
            return True
    return False


_OPTIONAL_PARTS = 16  # at most, of a long name that its shorter form matches


# A word of three letters or more right before a digit ("llama3", "llama 3"): a model
# family and its generation, written joined or apart ("Llama3-8B", "Llama 3 8B",
# "Llama-3-8B" are one model). Shorter runs stay as written: "a 100" is no "A100".
_WORD_THEN_DIGIT = re.compile(r"(?<![a-z])([a-z]{3,})(?=[0-9])")
_ENDS_WITH_WORD = re.compile(r"(?<![a-z])[a-z]{3,}$")
_OPTIONAL_SEP = "(?:" + _SEP + ")?"


def _segment(segment: str) -> str:
    return _WORD_THEN_DIGIT.sub(lambda m: m.group(1) + _OPTIONAL_SEP, re.escape(segment))


def _joined(segments: list[str]) -> str:
    """The pattern of a folded name's segments, each separator as written, except that
    one between a word and a digit may be there or not (:data:`_WORD_THEN_DIGIT`). Two
    digits or two words stay apart: "Llama 3 8B" is not "Llama 38B"."""
    body = _segment(segments[0])
    for before, segment in itertools.pairwise(segments):
        word_digit = segment[:1].isdigit() and _ENDS_WITH_WORD.search(before) is not None
        body += (_OPTIONAL_SEP if word_digit else _SEP) + _segment(segment)
    return body


@lru_cache(maxsize=4096)
def split_forms(key: str) -> bool:
    """Whether a folded name can be written with a separator more or less than its key
    has (a word before a digit): a source may write it so, and a look-up of its words
    alone would miss it."""
    return _WORD_THEN_DIGIT.search(key) is not None


_LEADING_WORD = re.compile(r"([a-z]{3,})\x00?(?=[0-9])")


def leading_word(key: str) -> str:
    """The word a folded name starts with when a digit follows it, joined or apart
    ("llama" of "llama3" and of "llama\x003"): where a look-up of the name starts, as its
    first segment may not be a word of a source that writes it the other way."""
    m = _LEADING_WORD.match(key)
    return m.group(1) if m else ""


@lru_cache(maxsize=4096)
def name_pattern(key: str) -> re.Pattern[str]:
    """A pattern for a folded name: plural-tolerant; a long model name also matches its
    shorter form ("Llama-3.1-8B-Instruct" matches "Llama-3.1-8B", and "Llama-3.1-8B"
    matches "Llama-3.1"), but not another model of the family ("Llama-3.1-70B": the
    shorter form may not go on with a number)."""
    segments = key.split("\x00")
    keep = len(segments)
    for i in range(2, len(segments)):
        head = segments[:i]
        if any(c.isdigit() for c in "".join(head)):
            keep = i
            break
    if len(segments) - keep > _OPTIONAL_PARTS:
        # Each optional part nests in the one before: some 500 of them ("1-1-1-...")
        # overflow the regex parser's recursion. A name has a few; so many are written out.
        keep = len(segments)
    body = _joined(segments[:keep])
    for s in segments[keep:]:
        body += "(?:" + _SEP + _segment(s)
    body += ")?" * (len(segments) - keep)
    if keep < len(segments):
        body += "(?!" + _SEP + r"[a-z]*[0-9]|\.[0-9])"
    if body[:1].isalnum():
        # Its first letter first, the look-behind after it (the same matches): a pattern
        # that starts with a literal is skipped ahead in C to where the letter stands;
        # one that starts with a look-behind is tried at each position of a context.
        return re.compile(body[0] + r"(?<![a-z0-9]" + body[0] + ")" + body[1:] + r"s?(?![a-z0-9])")
    return re.compile(r"(?<![a-z0-9])" + body + r"s?(?![a-z0-9])")


@lru_cache(maxsize=4096)
def verbatim_pattern(key: str, version: bool) -> re.Pattern[str]:
    """A folded identifier, verbatim up to case and separators (and a separator between
    a word and a digit, :func:`_joined`), in folded or plain text."""
    release = release_head(key) if version else ""
    body = re.escape(release) + _RELEASE_TAIL if release else _joined(key.split("\x00"))
    prefix = "v?" if version else ""
    return re.compile(r"(?<![a-z0-9.])" + prefix + body + r"s?(?![a-z0-9]|\.[a-z0-9])")


_RELEASE = re.compile(r"(\d+\.\d+)(?:\.0)*")
# What may follow a release's number and be the same release: ".0" parts ("2.14.0"), or
# the series it names ("0.3.x").
_RELEASE_TAIL = r"(?:\.0)*(?:\.[x*])?"


def release_head(key: str) -> str:
    """The major and minor number of a version key of numbers only, with no part past
    them but zeros ("2.14" of "2.14" and "2.14.0"): the release that "2.14", "2.14.0"
    and the series "2.14.x" all name. Else ""."""
    m = _RELEASE.fullmatch(key)
    return m.group(1) if m else ""


def name_key(word: str) -> str:
    """The folded key of a name word (plural-free: "GPUs" is "gpu")."""
    key = fold(word)
    if len(word) > 2 and word.endswith("s") and any(c.isupper() or c.isdigit() for c in word[1:-1]):
        key = key[:-1]  # GPUs -> gpu, LLMs -> llm
    return key


def is_name(word: str, initial: bool) -> bool:
    """Whether a word names a thing (``initial``: it starts the sentence)."""
    if len(word) < 2 or not word[0].isalpha() or word in _NOT_NAMES:
        return False
    if any(map(str.isupper, word[1:])):
        return True  # ATen, RMSNorm, TopK, MXFP, vLLM, NT
    return word[0].isupper() and not initial  # Triton, Llama, Qwen in mid-sentence


_STOP = frozenset(
    "the a an of and or to in on at for with by from per over across into than as is are "  # noqa: SIM905
    "was were be been each all more less most its their that which this these those some any "
    "other also only both up about under new same such then when while where who whose it "
    "they them there here not no nor but so very much many few several times percent between "
    "within without after before during against among around out off above below use uses "
    "used using make makes made get gets got run runs ran have has had show shows shown "
    "can could will would may might must should does did done "
    # Verbs of lasting, no thing a figure counts: "should keep working with 2.15 and
    # 2.16" (the post: "compatible with future versions of torch: 2.15, 2.16").
    "keep keeps kept keeping stay stays stayed staying remain remains remained working "
    # An explainer's attributions ("the authors report", "the post lists") say who says
    # it, not what a figure counts.
    "post posts author authors report reports reported according list lists listed "
    # A list's marker, no noun of its last figure: "need CUDA 13.3+ and 13.2+,
    # respectively" (the German "jeweils" is one below too).
    "respectively".split()
)
STOP_WORDS = _STOP
# A German explainer's function words (a feed set to "de"; the check is never told the
# language, and no English text writes these), which would be read as the nouns of a
# figure: "Es sind 1,2 Millionen Nutzer und 3 Milliarden Parameter" gave 1,2 Millionen
# "nutzer, und, sind", and "und" or "als" finds "under" or "also" near another figure.
# Not the German words that are English nouns of a technical post ("die": a chip's die,
# "5-inch die"; "hat", "fast", "war", "bin", "art", "gut", "pro"): one stays a noun of
# the figure, a false alarm at most where no English word matches it. German nouns stay
# content words: "Nutzer" is not "users", and a figure with no noun binds nothing, so
# dropping them would pass "1,2 Millionen Nutzer" where the source has 1.2 million of
# anything; a German noun that is no English word is a false alarm instead.
GERMAN_STOP_WORDS = frozenset(
    "und oder aber sind ist sein seine seinen seiner wird werden wurde wurden haben "  # noqa: SIM905
    "hatte der das dem des ein eine einen einem einer eines mit für auf bei von "
    "vom zum zur als wie nicht kein keine auch nur noch schon bis nach aus über unter "
    "durch gegen ohne etwa rund knapp sich sie wir ihr ihre ihren ihrem ihnen dass "
    "wenn weil dann denn doch jedoch sowie sowohl diese dieser dieses diesem diesen jede "
    "jeder jedes jeden alle allen mehr weniger sehr kann können könnte muss soll sollte "
    "damit dabei dafür davon darin hier dort bereits jeweils insgesamt bzw beim neu neue "
    "neuen neuer neues nutzt verwendet zeigt zeigen laut beitrag autor autoren".split()
)
_STOP_ALL = _STOP | GERMAN_STOP_WORDS
# German letters too: "über" is one word, not "ber"; "können" not "nnen".
_WORDS = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß'-]*")


# A list's marker, as "respectively" is: "13.3+ and 13.2+, in that order" says the
# order of its figures, and "order" is no noun of them (a noun elsewhere: "2 orders").
IN_ORDER = re.compile(r"\bin\s+(?:that|this|the\s+same)\s+order\b", re.I)


def content_words(text: str, limit: int = 3, *, last: bool = False) -> list[str]:
    """The first (or last) ``limit`` content words of a text (a list's "in that order"
    none)."""
    if "order" in text:
        text = IN_ORDER.sub(" ", text)
    parts = [
        part
        for word in _WORDS.findall(text)
        for part in word.lower().split("-")
        if len(part) >= 3 and part not in _STOP_ALL and part.isalpha()
    ]
    return parts[-limit:] if last else parts[:limit]


@lru_cache(maxsize=4096)
def noun_pattern(word: str) -> re.Pattern[str]:
    """A noun's five-letter stem anywhere, or a whole-word abbreviation of it ("seq",
    "len", "tok" for "sequence", "length", "tokens")."""
    prefixes = [word[:k] for k in range(len(word) - 1, 2, -1) if word[:k] not in _STOP]
    alternatives = [re.escape(word[:5])]
    if prefixes:
        alternatives.append("(?:" + "|".join(map(re.escape, prefixes)) + ")(?![a-z])")
    return re.compile(r"(?<![a-z])(?:" + "|".join(alternatives) + ")")


def find_noun(noun: str, text: str) -> re.Match[str] | None:
    """:func:`noun_pattern` searched in ``text``, where its first three letters stand
    (every alternative starts with them): most texts a noun is looked for in lack them,
    found by `in` in C, where the pattern, a look-behind first, is tried at each
    position."""
    return noun_pattern(noun).search(text) if noun[:3] in text else None


_INSIDE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789,;(")  # before a name inside
_ENDS = re.compile(r"(?![\w-])")


def named_inside(text: str, words: frozenset[str], word: str) -> bool:
    """Whether a capitalised word that starts an explainer sentence is a name all the
    same: ``text`` (a source in its own case, of lower-case ``words``) writes it
    capitalised inside a sentence, and nowhere in lower case ("SVD, QR, Cholesky": so
    "Cholesky is roughly 2–9x faster" names it; not "The", nor "Gisting", which the
    source writes only to start a sentence, as a verb may be), or starts a sentence of
    figures the way the sentence next to it starts with another such word
    (:func:`_opens_alike`). Finds in C, no pattern, but for a word found so nowhere."""
    lower, at = word.lower(), -1
    found = lower in words and lower not in text
    while found and (at := text.find(" " + word, at + 1)) >= 0:
        if at and text[at - 1] in _INSIDE and _ENDS.match(text, at + len(word) + 1):
            return True
    return found and _opens_alike(text, word)


# A sentence of a line of text: up to a stop followed by white space or the line's end
# (not the point of "13.3").
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?![ \t]|$))+[.!?]*", re.M)
# A sentence's first word, capitalised, and the lower-case word after it (its verb).
_OPENING = re.compile(r"\s*([A-Z][\w-]*)[ \t]+([a-z]+)\b")
_DIGIT = re.compile(r"\d")


def _opens_alike(text: str, word: str) -> bool:
    """Whether ``text`` starts a sentence of figures with ``word`` and the next word, and
    the sentence next to it in its line with another capitalised word, not a stop word
    and nowhere in lower case either, and the same next word ("Blackwell needs CUDA
    13.3+. Hopper needs CUDA 13.2+."): two things set side by side, each named; not a
    verb ("Gisting"), which no sentence next to it would match so, nor "This", "Each"."""
    if word.lower() in _STOP_ALL:
        return False
    at = -1
    while (at := text.find(word + " ", at + 1)) >= 0:
        lo = text.rfind("\n", 0, at) + 1
        hi = text.find("\n", at)
        line = text[lo : hi if hi >= 0 else len(text)]
        sentences = [m.group(0) for m in _SENTENCE.finditer(line)]
        for i, sentence in enumerate(sentences):
            own = _OPENING.match(sentence)
            if own is None or own.group(1) != word or not _DIGIT.search(sentence):
                continue
            for other in sentences[max(0, i - 1) : i] + sentences[i + 1 : i + 2]:
                found = _OPENING.match(other)
                if (
                    found is not None
                    and found.group(2) == own.group(2)
                    and found.group(1) != word
                    and found.group(1).lower() not in _STOP_ALL
                    and found.group(1).lower() not in text
                    and _DIGIT.search(other)
                ):
                    return True
    return False
