"""Which items of a fetched feed are new, which changed, which stay as they are.

A pure decision over content hashes (like lemon24/reader's update intents): the
orchestrator reads the stored hashes, calls :func:`decide_changes`, and writes what it
says. Items that rotated out of the feed appear in no list: they are simply not touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from service.models import Article


@dataclass(frozen=True, slots=True)
class Changes:
    """The decision for one fetch of a feed, in feed order."""

    new: tuple[tuple[str, Article], ...] = ()  # keys never seen: create, queue
    changed: tuple[tuple[str, Article], ...] = ()  # text differs: store, queue again
    unchanged: tuple[str, ...] = ()  # same text (maybe other markup): nothing to do

    @property
    def to_queue(self) -> tuple[tuple[str, Article], ...]:
        """Everything that needs an explainer (again)."""
        return self.new + self.changed


def decide_changes(known: Mapping[str, str], incoming: Iterable[tuple[str, Article]]) -> Changes:
    """Compare a feed's incoming items with the stored ``key -> content hash``.

    The hash is :attr:`Article.hash`, the hash of the cleaned text, so markup-only edits
    (an ``<img>`` attribute, whitespace, a tracking parameter in a link) change nothing,
    while any edit a reader would see (a figure in a paragraph) re-queues the item.
    ``known`` must hold hashes of articles built the same way (from the feed entry), not
    of pages fetched later for excerpt-only feeds. A key repeated in ``incoming`` counts
    once, first occurrence first.
    """
    new: list[tuple[str, Article]] = []
    changed: list[tuple[str, Article]] = []
    unchanged: list[str] = []
    seen: set[str] = set()
    for key, article in incoming:
        if key in seen:
            continue
        seen.add(key)
        stored = known.get(key)
        if stored is None:
            new.append((key, article))
        elif stored != article.hash:
            changed.append((key, article))
        else:
            unchanged.append(key)
    return Changes(new=tuple(new), changed=tuple(changed), unchanged=tuple(unchanged))
