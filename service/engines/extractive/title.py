"""The explainer's title (the post's subject and its headline claim, words as written) and
its takeaway (the best sentence of the post's conclusion)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from service.check import check_explainer
from service.engines.extractive.definitions import define
from service.engines.extractive.glossary import MAX_DEFINITIONS, GlossaryEntry
from service.engines.extractive.inline import strip_refs
from service.engines.extractive.naming import longer_name, name_once, names_listed
from service.engines.extractive.phrases import ENGLISH, Wording
from service.engines.extractive.repeats import without_repeat
from service.engines.extractive.sentences import Cand, Draft
from service.engines.extractive.style import finish, third_person
from service.engines.extractive.subject import SUBJECT_COLON, strip_site_name
from service.engines.extractive.subject import subject as subject_of_post
from service.engines.extractive.title_length import (
    TITLE_WORDS,
    affected_first,
    fits,
    shorten,
    words,
)
from service.engines.extractive.words import (
    STOPWORDS,
    CaseTable,
    capitalise,
    is_title_word,
    lower_first,
    restore_slug,
    title_case,
)
from service.models import Article, CheckStatus
from service.numbers import Kind, extract_numbers, prepare
from service.numbers.context import list_runs
from service.text import ends_at_stop, split_sentences

# Names too generic to be an explainer's subject.
_JUNK_TITLE = re.compile(
    r"^(tl;?dr|summary|introduction|overview|untitled( post)?|home|blog|post|news|none)?\W*$",
    re.IGNORECASE,
)


def explainer_title(
    article: Article, draft: Draft, case: CaseTable, wording: Wording = ENGLISH
) -> str:
    """The title: the subject, then what the post's own title adds and its claim. A claim
    is kept only when the number check finds each of its figures where the post says
    them (a phrase cut out of its sentence can lose what a figure is said of). A title
    with nothing to add says "what the post says" in ``wording``'s language."""
    raw = strip_site_name(restore_slug(" ".join(article.title.split()), case))
    if _JUNK_TITLE.match(raw):
        raw = ""  # a fallback title ("TL;DR") says nothing: subject and claim do
    elif _opening_words(raw, article.text):
        raw = _first_sentence(raw, article.text)
        # An untitled post's own first words: subject and claim say more when the post
        # has a claim ("We are excited to announce ..." against "2,995 commits from 487
        # contributors"); a status update's first sentence is all it has to say. A
        # claim alone ("10 hours per week", "Performance is now up to 90% faster") says
        # neither what nor whose: it needs the subject before it.
        title, claimed = _title(article, draft, case, "", wording)
        if claimed and ": " in title:
            return title
        # The first sentence is the title then, and a claim after it ("..., powered by
        # MLX, Performance is now up to 90% faster") runs two sentences into one.
        return _title(article, draft, case, raw, wording, with_claim=False)[0]
    return _title(article, draft, case, raw, wording)[0]


def _title(
    article: Article,
    draft: Draft,
    case: CaseTable,
    raw: str,
    wording: Wording,
    *,
    with_claim: bool = True,
) -> tuple[str, bool]:
    """The title made of ``raw`` (the post's title, cleaned), and whether it carries a
    claim (none unless ``with_claim``)."""
    intro = [c.text for c in draft.cands if draft.sections[c.section].role == "intro"]
    subject = subject_of_post(raw, intro, article.text, f"{article.title}\n{article.text}")
    new, right = raw, ""
    if SUBJECT_COLON.search(raw):
        left, right = (x.strip() for x in SUBJECT_COLON.split(raw, 1))
        if subject and longer_name(subject, left, article.text):
            subject = left  # "MiniMax Speech 2.6 Turbo: ...", not "MiniMax Speech 2.6"
        new = right if left == subject else left
    clause = False
    if subject:
        subject, new, clause = name_once(
            subject, new, article.text, f"{article.title}\n{article.text}"
        )
        if clause and right and new == left:
            # The title before its colon is a clause naming the subject: what follows the
            # colon is what it says ("New in Together GPU Clusters: Autoscaling, ..."),
            # not a claim to replace it; two posts' titles read the same without it.
            new = raw
    new = new.rstrip("?!. ")
    if subject and re.fullmatch(rf"((how|why|what|when|where)\s+)?{re.escape(subject)}", new, re.I):
        new = ""  # "Why ExecuTorch?" says no more than the subject
    # The post's own title speaks as its authors ("We ran 900 rollouts", "Our approach"):
    # the explainer does not (README, "The explainer": no first person), its sentences neither.
    new = title_case(third_person(new, draft.voice), case) if new else ""
    listed = clause and names_listed(new)
    claims = _claims(draft, new, subject) if with_claim else iter(())
    long = False  # whether the best claim made the title too long
    for claim in [*claims, ""]:
        # "the" goes before what a figure is of ("the 1.10x speedup"), not before who
        # speaks: "..., team tried 8–16 configurations" lost the article a subject needs.
        if (
            claim
            and claim.split(" ", 1)[0].lower() in ("the", "a", "an", "this", "its")
            and not re.match(r"the (team|authors)\b", claim, re.IGNORECASE)
        ):
            claim = claim.split(" ", 1)[1]
        if claim and new:
            lowered = lower_first(claim, case)
            if lowered is None and is_title_word(claim.split(" ", 1)[0]):
                # A sentence's capital the post gives no clue about ("Performance is now
                # up to 90% faster"): after a comma it reads as a name, lower-cased it
                # may misname one.
                continue
            claim = lowered or claim
            # "Together AI delivers fastest inference, up to 2x faster inference": the
            # noun once, where the claim's comparison is of it ("up to 2x faster").
            # Said only with the noun again, it is no claim, and no lesser one replaces it.
            kept = without_repeat(new, claim)
            if kept is None:
                long = True
                continue
            claim = kept
        says = wording.says
        title = _compose(subject, new, claim, says, listed=listed, clause=clause)
        if claim and long:
            # None then: a title is scanned, not read; a lesser claim that fits ("52
            # layers are global") says less of the post than its subject does.
            continue
        if claim and not fits(title):
            long = True
            # Room for the claim, what the post shows, in a title cut short where a phrase
            # ends: "D4RT: Teaching AI to see the world, up to 300x faster than prior
            # methods"; not where the cut takes the subject's name with it ("... to
            # natively serve Kimi models"), nor a name the claim says again: "Together AI
            # announces ... with Moonshot AI, 2.8T parameter Kimi K3" lost what the post
            # does with Kimi.
            room = TITLE_WORDS - words(title) + words(new)
            short = shorten(new, room) if not listed else new
            cut = new[len(short) :]
            if (
                short == new
                or words(short) < _SHORT_NEW
                or (subject and re.search(rf"(?<![\w\-]){re.escape(subject)}(?![\w\-])", cut))
                or _names_of(cut) & _names_of(claim)
            ):
                continue
            kept = without_repeat(short, claim)
            if kept is None:
                continue
            claim = kept
            title = _compose(subject, short, claim, says, listed=listed, clause=clause)
        if not claim or _checks(title, article):
            return _fit(title, says, phrases=with_claim), bool(claim)
    raise AssertionError("unreachable: the title without a claim is always returned")


def _names_of(text: str) -> set[str]:
    """The capitalised words of ``text`` past a sentence's first: names, as a title cut
    and a claim share them."""
    return {w for w in re.findall(r"(?<=\s)[A-Z][\w\-]*", text) if w.lower() not in STOPWORDS}


_SHORT_NEW = 4  # words of what the title adds, at least, cut to make room for a claim


def _compose(subject: str, new: str, claim: str, says: str, *, listed: bool, clause: bool) -> str:
    """The title of ``subject``, what the post's title adds (``new``) and ``claim``."""
    parts = [p for p in (new, claim) if p]
    rest = capitalise(", ".join(parts)) if parts else says[:1].upper() + says[1:]
    if listed:
        # What a bare list of names is, said after it: a claim ran on as one more
        # item of the list ("..., and 3.5 Flash Cyber, up to 2x faster").
        return f"{new}: {claim or says}"
    if clause:
        return rest
    if not subject:
        return rest if claim or SUBJECT_COLON.search(rest) else f"{rest}: {says}"
    return f"{subject}: {rest}"


def _fit(title: str, says: str, *, phrases: bool) -> str:
    """``title`` within the words a title has (``title_length``): without its "what the
    post says" first (a title that long says something), then cut where a phrase ends
    (a post's first sentence, not where a ``phrases``' preposition starts)."""
    if fits(title):
        return title
    if title.endswith(f": {says}"):
        title = title[: -len(says) - 2]
    short = shorten(title, phrases=phrases)
    return affected_first(title, short) or short


_FIRST_SENTENCE_WORDS = 40  # longer, it reads as a paragraph, not a title


def _first_sentence(title: str, text: str) -> str:
    """An untitled post's opening words cut with an ellipsis ("... the issue affecting
    Claude Code has …") as its whole first sentence, when that is short enough to be a
    title; the cut left a title that stops mid-clause."""
    if not title.endswith(" …"):
        return title
    sentences = split_sentences(" ".join(text[: len(title) + 600].split()))
    first = sentences[0] if sentences else ""
    if first.startswith(title[:-2]) and len(first.split()) <= _FIRST_SENTENCE_WORDS:
        return first.rstrip(".")
    return title


def _opening_words(title: str, text: str) -> bool:
    """Whether ``title`` is what the cleaner takes for an untitled post: its first words
    cut with an ellipsis, or its first sentence."""
    opening = " ".join(text[: len(title) + 300].split())
    if title.endswith(" …"):
        return title[:-2] in opening
    return ends_at_stop(title) and title in opening


def _checks(title: str, article: Article) -> bool:
    """Whether every number of a title is one the post writes for those things."""
    report = check_explainer(title, article.text, title=article.title)
    return all(n.status == CheckStatus.SUPPORTED for n in report.numbers)


def _claims(draft: Draft, new: str, subject: str = "") -> Iterator[str]:
    """Short phrases around the post's headline figures, words as written, best first:
    from the intro, else from the best figure-bearing sentences of the post; none of a
    figure the title says already, in ``new`` or in its ``subject`` ("Gemini 3.1 Pro: ...,
    3.1 Pro is designed")."""
    usable = [c for c in draft.cands if (c.base > -50 or c.long) and c.kind != "table"]
    intro = [c for c in usable if draft.sections[c.section].role == "intro"]
    ranked = sorted(
        (c for c in usable if any(w >= 1.0 for f, w in c.figures.items())),
        key=lambda c: (-draft.gain(c, {}), c.section, c.index),
    )
    said = {n.text for n in extract_numbers(f"{subject}\n{new}")}
    seen: set[str] = set()
    for pool, least in ((intro, 2.0), (ranked[:5], 2.0), (ranked[:3], 1.0)):
        for c in pool:
            text = third_person(strip_refs(c.text), draft.voice)
            for fig, w in c.figures.items():
                if w < least:
                    continue
                phrase = _phrase_around(text, _whole_figure(text, fig, said))
                if phrase and phrase not in seen and _reads_alone(phrase, new, text):
                    seen.add(phrase)
                    yield phrase


def _whole_figure(sentence: str, fig: str, said: set[str]) -> str:
    """The figure as the sentence writes it whole: a range for one of its ends ("4.8x to
    7.5x" for "7.5x"), a list for one of its members; "" for a version or a name ("Opus
    5.5" is no claim) and for a figure the title says already."""
    at = sentence.find(fig)
    # Read near the figure only: a title phrase is a few words, and every number of a
    # long sentence read for each of its figures ("1.5x " 20,000 times) took seconds.
    lo = max(0, at - _AROUND)
    near = sentence[lo : at + len(fig) + _AROUND]
    at -= lo
    prepared = prepare(near)
    for run in list_runs(prepared, extract_numbers(near, words=False, prepared=prepared)):
        if any(n.start <= at < n.end for n in run):
            if any(n.kind in (Kind.VERSION, Kind.IDENTIFIER) or n.text in said for n in run):
                return ""
            return near[run[0].start : run[-1].end]  # the whole list: "11B and 90B"
    return fig


_AROUND = 400  # characters either side of a title claim's figure


_OPENS_BADLY = re.compile(
    r"(?:will|would|can|could|may|might|should|must|is|are|was|were|has|have|had|be|been|"
    r"do|does|did|and|or|but)\b",
    re.IGNORECASE,
)


def _reads_alone(phrase: str, new: str, sentence: str) -> bool:
    """A claim that stands as a phrase: words besides its figures, balanced parentheses,
    not opening on a verb whose subject was cut off or on a figure cut from the name
    before it ("5.1 and Mythos 5" out of "Claude Fable 5.1 and Mythos 5"), not ending
    where a parenthesis interrupts its noun phrase, not the second of two reported
    clauses, not a repeat of the title."""
    words = [w for w in re.findall(r"(?<!\w)[A-Za-z][\w'-]*", phrase) if w.lower() not in STOPWORDS]
    if len(words) < 2 or phrase.count("(") != phrase.count(")") or _OPENS_BADLY.match(phrase):
        return False
    first = phrase.split(" ", 1)[0]
    if first.islower() and first.endswith("ed"):
        return False  # "boosted Mixtral 8x22B throughput by +27%": whose boost?
    at = max(0, sentence.find(phrase))
    before = sentence[:at].split()
    if first[:1].isdigit() and before and before[-1][:1].isupper():
        return False
    if re.match(r"\s*\([^()]*\)\s+[a-z]", sentence[at + len(phrase) :]):
        return False  # "a 30 billion parameter (3B active) open model": cut mid-phrase
    if re.search(r"\b(?:and|but|or) that\b", phrase):
        return False  # "... and that aten.mm takes ...": the second of two cut "that"s
    title_words = {w.lower() for w in re.findall(r"[\w.-]+", new)}
    # Not a repeat of the title, whole or for the most part of its words ("Now available
    # on Together AI, available on Together AI with 512K context").
    repeated = sum(1 for w in words if w.lower() in title_words)
    whole = all(w.lower() in title_words for w in re.findall(r"[\w.-]+", phrase))
    return not whole and 2 * repeated <= len(words)


def takeaway(
    draft: Draft,
    glossary: Sequence[GlossaryEntry],
    defined: set[str],
    used: Collection[Cand] = (),
    most: int = MAX_DEFINITIONS,
) -> str | None:
    """The conclusion's best plain sentence, if the post has a conclusion and one the
    sections do not already say (``used``: the sentences they are made of; the conclusion
    is the last section when the post has no "what comes next")."""
    concl = [i for i, s in enumerate(draft.sections) if s.role == "conclusion"]
    said = {id(c) for c in used}
    pool = [
        c
        for c in draft.cands
        if c.section in concl
        and id(c) not in said
        and c.base > -50
        and c.kind == "prose"
        and not re.search(r"\byou", c.text, re.I)
    ]
    if not pool:
        return None
    best = max(pool, key=lambda c: (c.base + 0.3 * len(c.figures), -c.index))
    return define(finish(third_person(best.text, draft.voice)), glossary, defined, most)


# An em dash closes a clause spaced or not ("query execution plans—achieving up to 4.78x
# speedups"); an en dash unspaced joins a compound ("prefill–decode").
_CLAUSE_CUT = re.compile(r",\s|;\s|:\s|\s\(|\s?—\s?|\s–\s|\.\s")
_PREP_CUT = re.compile(
    r"\s(?:for|over|across|on|with|in|when|at|by|while|because|as|than|compared|relative|"
    r"using|through|after|before|from)\s"
)
_LEAD_IN = (
    "up to",
    "within",
    "about",
    "roughly",
    "around",
    "nearly",
    "almost",
    "approximately",
    "over",
    "under",
    "by",
    "only",
    "just",
    "at least",
    "at most",
    "more than",
    "less than",
    "than",
)


# A figure's baseline: cut off, "a 1.5x speedup" says no more than "faster".
_BASELINE = ("over", "than", "compared", "relative")


def _phrase_around(sentence: str, fig: str) -> str:
    """The clause holding ``fig``, trimmed at commas and at a trailing prepositional
    phrase other than its baseline ("over the old kernels"); the cut never falls inside
    the figure or a range."""
    at = sentence.find(fig) if fig else -1
    if at < 0:
        return ""
    start = 0
    for m in _CLAUSE_CUT.finditer(sentence):
        if m.end() <= at:
            start = m.end()
    end = len(sentence)
    for m in _CLAUSE_CUT.finditer(sentence, at + len(fig)):
        end = m.start()
        break
    clause = sentence[start:end].strip().rstrip(".")
    rel = clause.find(fig)
    after = clause[rel:]
    for m in _PREP_CUT.finditer(after, len(fig)):
        rest = after[m.end() :]
        if re.match(r"[\d$]", rest):
            continue  # "from 8 to 256": part of a range
        if m.group(0).strip() in _BASELINE:
            continue  # "a 1.5x speedup over the old kernels": what it is measured against
        if len(clause[: rel + m.start()].split()) >= 4 and len(clause.split()) > 10:
            after = after[: m.start()]
            break
    before = clause[:rel].split()
    if len(after.split()) >= 3:
        # The figure leads its noun phrase ("1.10x geometric-mean speedup"); keep only
        # a lead-in that belongs to it ("up to", "within").
        keep: list[str] = []
        for lead in _LEAD_IN:
            n = len(lead.split())
            if [w.lower() for w in before[-n:]] == lead.split():
                keep = before[-n:]
                break
        phrase = " ".join([*keep, after])
    else:
        phrase = " ".join([*before[-5:], after])
    phrase = re.sub(r"^(and|or|but|while|with|which|that|so)\s+", "", phrase.strip(), flags=re.I)
    if not 2 <= len(phrase.split()) <= 14:
        return ""
    return phrase
