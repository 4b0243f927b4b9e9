"""The offline explainer engine: the explainer shape built from the post's own sentences.

No model at all. The post is read as blocks (``service.text``), its sections become the
explainer's sections, and in each the most informative whole sentences are kept: those
with figures and their conditions, early ones, ones that share words with the title.
Table rows become sentences of their label and cells, each cell after its column's name.
Jargon gets a plain definition at first use from ``prompts/glossary.yaml``; result
sentences are attributed to the post.

Every sentence is a source sentence used whole (only Markdown syntax stripped, first
person turned into "the authors", or "the team" where the publisher speaks: a status
page, an unsigned feed post; an attribution or a definition added), and nothing
the engine adds contains a digit, so every number of the explainer is the source's own,
character for character. Verbatim is not enough for the number check, which also asks
what a figure is said of, so the engine keeps each figure with its context: a sentence
whose figures name nothing follows its own predecessor or opens a paragraph, a
pronoun-led one comes with the sentence it leans on, no definition stands right before
a figure, and the title's claim (a phrase cut from a sentence) is kept only when the
check backs it.

One module a step: ``sections`` (the post's sections and their roles), ``sentences``
(candidates and their scores; ``fragments`` tells a noun phrase from a sentence),
``plan`` (which sections, how many words, which sentences), ``style``, ``team``,
``glossary`` and ``definitions`` (wording and definitions; ``team`` words the
publisher's "we", ``owners`` tells a roundup's project that speaks in its own
section), ``title`` (title and takeaway) and ``subject`` (the name the title leads with); ``words``,
``figures``, ``inline`` and ``blocks`` read the text for them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import logging
import re
from collections.abc import Sequence
from pathlib import Path

from service.clean import opening_title
from service.config import DEFAULT_PROMPTS_DIR
from service.engines.base import ExplainOptions
from service.engines.extractive.blocks import MAX_CODE_LINES
from service.engines.extractive.definition_tables import table_notes
from service.engines.extractive.definitions import define
from service.engines.extractive.figures import number_tokens
from service.engines.extractive.glossary import (
    GLOSSARY_FILE,
    MAX_DEFINITIONS,
    WORDS_PER_SHORT,
    GlossaryEntry,
    definition_cap,
    load_glossary,
    most_seen,
)
from service.engines.extractive.headings import heading_in
from service.engines.extractive.inline import clean_inline, strip_refs
from service.engines.extractive.owners import owners
from service.engines.extractive.phrases import Wording, as_caption, wording_in
from service.engines.extractive.plan import (
    MAX_PARAGRAPHS,
    MAX_SECTIONS,
    MIN_SECTIONS,
    Plan,
    budgets,
    paragraphs,
    plan,
    select,
)
from service.engines.extractive.reading import read
from service.engines.extractive.sections import Role, plain_heading, source_sections
from service.engines.extractive.sentences import (
    Cand,
    Draft,
    collect,
    is_result,
    with_subject,
)
from service.engines.extractive.style import dehype, third_person, voice_of, write_sentence
from service.engines.extractive.title import explainer_title, takeaway
from service.engines.extractive.words import STOPWORDS, CaseTable, case_table, content_words
from service.errors import NothingToExplain, PostTooLong
from service.models import Article, CheckReport, Explainer, ExplainResult, Section, Usage
from service.text import split_blocks

log = logging.getLogger(__name__)

# Everything public of the engine when it was one module stays importable from here.
__all__ = [
    "ENGINE_VERSION",
    "GLOSSARY_FILE",
    "MAX_CODE_LINES",
    "MAX_DEFINITIONS",
    "MAX_PARAGRAPHS",
    "MAX_SECTIONS",
    "MIN_SECTIONS",
    "STOPWORDS",
    "ExtractiveEngine",
    "GlossaryEntry",
    "Role",
    "build_explainer",
    "clean_inline",
    "dehype",
    "load_glossary",
    "number_tokens",
    "plain_heading",
    "strip_refs",
    "third_person",
]

# Bump when the output for the same input changes: it is part of the idempotency key.
ENGINE_VERSION = "extractive-36"


class ExtractiveEngine:
    """Builds explainers from the post's own sentences; deterministic, offline, fast."""

    name = "extractive"
    waits_on_io = False  # it is all CPU: indexing beside it would only share the GIL

    def __init__(
        self, prompts_dir: Path = DEFAULT_PROMPTS_DIR, max_chars: int | None = None
    ) -> None:
        self.prompts_dir = prompts_dir
        self.max_chars = max_chars  # PLAINFEED_EXTRACTIVE_MAX_CHARS; None: no bound

    def close(self) -> None:
        """Nothing to let go of: it holds no connection."""

    def _glossary_paths(self, options: ExplainOptions) -> list[Path]:
        paths = [self.prompts_dir / GLOSSARY_FILE]
        if options.template_dir is not None:
            paths.append(options.template_dir / GLOSSARY_FILE)
        return paths

    def identity(self, options: ExplainOptions) -> tuple[str, str]:
        raw, _ = load_glossary(*self._glossary_paths(options))
        digest = hashlib.sha256(f"{ENGINE_VERSION}\n{raw}".encode()).hexdigest()[:16]
        return "extractive", f"{ENGINE_VERSION}+{digest}"

    def explain(self, article: Article, options: ExplainOptions) -> ExplainResult:
        most, size = self.max_chars, len(article.text)
        if most is not None and size > most:
            # Its time grows with the text (some 10 s of CPU a MB): refused before any
            # of it is spent, as the llm engine refuses a post over its parts.
            raise PostTooLong(
                f"the post ({size:,} characters) is over PLAINFEED_EXTRACTIVE_MAX_CHARS="
                f"{most:,}, the most the extractive engine explains"
            )
        _, glossary = load_glossary(*self._glossary_paths(options))
        explainer = build_explainer(article, glossary, options.language)
        _, version = self.identity(options)
        return ExplainResult(
            explainer=explainer,
            engine=self.name,
            model="extractive",
            prompt_version=version,
            usage=Usage(),
        )

    def repair(
        self,
        article: Article,
        result: ExplainResult,
        report: CheckReport,
        options: ExplainOptions,
    ) -> ExplainResult | None:
        # Its sentences are the source's own: a flagged number is a checker question,
        # not something rewriting could fix.
        return None


def build_explainer(
    article: Article, glossary: Sequence[GlossaryEntry] = (), language: str | None = None
) -> Explainer:
    """The explainer of ``article`` (pure), the words it writes itself (headings,
    attributions) in ``language`` (a feed's setting) where it can and the post is in
    it. Raises ``NothingToExplain`` (an ``EngineError``) when there is no text."""
    if not article.text.strip():
        raise NothingToExplain("the article has no text to explain (empty content)")
    if not article.title.strip():
        # Untitled (a text file whose first line reads as no title): its opening words,
        # as the cleaner titles an untitled page or entry (explainer_title knows them).
        article = dataclasses.replace(article, title=opening_title(article.text), hash=article.hash)
    article = _without_runs(article)
    reading = read(article.text)
    if reading.figures_left_out:
        log.warning("extractive engine: %s", reading.reason())
        article = dataclasses.replace(article, text=reading.text, hash=article.hash)
    blocks = split_blocks(article.text)
    prose = [b.text for b in blocks if b.kind in ("paragraph", "list_item")]
    case = case_table("\n".join(prose))
    draft = collect(source_sections(blocks), content_words(article.title))
    draft.voice = voice_of(article)
    if not any(c.base > -50 for c in draft.cands):
        # Past the cap, sentences may well be there: the reason says they were not read.
        unread = f" ({reading.reason()})" if reading.figures_left_out else ""
        raise NothingToExplain(f"the article has no prose sentences to explain{unread}")
    plans = plan(draft, case)
    total_budget = budgets(draft, plans)
    chosen = select(draft, plans, total_budget)
    if not any(chosen):
        # Nothing scored well (one long sentence, say): the best there is, alone.
        pool = [c for c in draft.cands if c.base > -50]
        best = max(pool, key=lambda c: (c.base, -c.section, -c.index))
        k = next((i for i, p in enumerate(plans) if best.section in p.sections), 0)
        chosen[k].append(best)
    who, used = owners(draft), [c for picked in chosen for c in picked]
    wording = wording_in(language, article.text)
    title = explainer_title(article, draft, case, wording)
    # Every term a definition finds a place for, first: past the cap (more for a longer
    # explainer), the cap goes to the terms the reader meets most (``most_seen``), and
    # the sections are written again.
    defined: set[str] = set()  # glossary terms defined so far: each only once
    sections = _write(draft, plans, chosen, glossary, case, defined, who, wording, len(glossary))
    if not sections:
        raise NothingToExplain("the article has no prose sentences to explain")
    end = takeaway(draft, glossary, defined, used, len(glossary))
    if len(defined) > MAX_DEFINITIONS:
        plain = _write(draft, plans, chosen, (), case, set(), who, wording)
        seen = [s.heading for s in plain] + [p for s in plain for p in s.paragraphs]
        seen.append(takeaway(draft, (), set(), used) or "")
        words = len(" ".join(seen).split())
        most = definition_cap(words)
        kept = most_seen(glossary, defined, "\n".join(seen), title, most)
        cut = len(kept) < len(defined)  # over the cap, or past the words an explainer has
        if cut:
            # Short glosses before any term goes bare: cut to the most seen at full
            # length, the FlyDSL explainer left DSL, MLIR and nightly undefined.
            brief = tuple(e.brief() for e in glossary)
            most_brief = definition_cap(words, WORDS_PER_SHORT)
            kept_brief = most_seen(brief, defined, "\n".join(seen), title, most_brief)
            if len(kept_brief) > len(kept):
                kept, most = kept_brief, most_brief
        if cut:
            glossary, defined = kept, set()
            sections = _write(draft, plans, chosen, glossary, case, defined, who, wording, most)
            end = takeaway(draft, glossary, defined, used, most)
    return Explainer(title=title, sections=sections, takeaway=end)


# No word of prose is this long: a run of it is markup gone wrong or hostile ("*a" 100,000
# times, a data URI). Each step after reads a sentence's words many times over, some of
# them (syllables, the title's number check) at a cost that grows faster than the run:
# 200 KB of "*a" took 8 s. It parts the sentences around it, as a paragraph break would
# (in a table's row it leaves the cell empty: a break there would part the row).
_MAX_RUN = 200
_RUN = re.compile(rf"\S{{{_MAX_RUN},}}")
# A table's separator row ("|---|---|"): over some 50 columns written without spaces it
# is one such run, and left empty it parted the header from the rows (a 300x300 table
# was read as two paragraphs of 180,000 words, seconds of CPU): spaced out instead.
_SEPARATOR = re.compile(r"\s*\|[-:|\s]*")


def _without_runs(article: Article) -> Article:
    """``article`` as the engine reads it: without runs of ``_MAX_RUN`` characters or
    more that hold no space (what is left of each is the source's own, word for word)."""
    if _RUN.search(article.text) is None and _RUN.search(article.title) is None:
        return article
    text = "\n".join(
        _RUN.sub("", line.replace("|", " | ") if _SEPARATOR.fullmatch(line) else line)
        if line.lstrip().startswith("|")
        else _RUN.sub("\n\n", line)
        for line in article.text.split("\n")
    )
    title = " ".join(_RUN.sub(" ", article.title).split())
    return dataclasses.replace(article, title=title, text=text, hash=article.hash)


def _write(
    draft: Draft,
    plans: list[Plan],
    chosen: list[list[Cand]],
    glossary: Sequence[GlossaryEntry],
    case: CaseTable,
    defined: set[str],
    who: dict[int, str],
    wording: Wording,
    most: int = MAX_DEFINITIONS,
) -> list[Section]:
    """The explainer's sections: paragraphs of the chosen sentences, the first result of
    each attributed to the post, glossary terms defined at first use; a sentence of a
    roundup's section in the voice of the project it introduces (``who``: ``owners``)."""
    attributions = 0
    # Each section's paragraphs as runs of one kind of sentence, written before any is
    # defined: a definition a crowded sentence has no room for goes to its next use,
    # which may be in a paragraph after it (``define``'s ``later``).
    written: list[tuple[Plan, list[list[tuple[str, str]]]]] = []
    for p, picked in zip(plans, chosen, strict=True):
        if not picked:
            continue
        runs_of = []
        for para in paragraphs(picked):
            sentences: list[str] = []
            attributed = False
            for c in para:
                attribute = None
                if not attributed and is_result(c):
                    attribute = attributions
                    attributions += 1
                    attributed = True
                text = as_caption(c, with_subject(c, case, sentences, wording), case, wording)
                sentences.append(
                    write_sentence(text, attribute, case, draft.voice, who.get(id(c), ""), wording)
                )
            grouped = itertools.groupby(zip(para, sentences, strict=True), lambda x: x[0].kind)
            runs_of.append([(k, " ".join(t for _, t in r)) for k, r in grouped])
        written.append((p, runs_of))
    # A table row read as a sentence ("Llama3-8B (dense): result +13.4% throughput.")
    # takes no definition: one there reads as another cell; notes after the rows do.
    prose = [t for _, runs_of in written for runs in runs_of for k, t in runs if k != "table"]
    sections: list[Section] = []
    done = 0
    for p, runs_of in written:
        paras = []
        for runs in runs_of:
            parts = []
            for kind, said in runs:
                if kind != "table":
                    done += 1
                    said = define(said, glossary, defined, most, " ".join(prose[done:]))
                else:
                    said += table_notes(said, glossary, defined, most)
                parts.append(said)
            paras.append(" ".join(parts))
        code = next((draft.codes[i] for i in p.sections if i in draft.codes), None)
        heading = heading_in(p.heading, wording.tag) if p.made else p.heading
        sections.append(Section(heading=heading, paragraphs=paras, code=code))
    return sections
