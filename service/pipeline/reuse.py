"""Reuse: another item's explainer of the same post, copied instead of paid for again.

worker -> process_item()  ... claim -> reuse? -> explain -> check -> store

An explainer of any item with the same content hash, prompt version, model and other
prompt inputs (service.engines.base.inputs_key) is what this item would get. It is copied
(``reused_from``, no tokens of its own) after the number check is run again on it
against this item, under today's checker and PLAINFEED_REVIEW_DERIVED: the check costs
milliseconds, and a checker or policy changed since would otherwise be skipped.
"""

from __future__ import annotations

from sqlalchemy import bindparam, or_, select

from service.gate import Outcome, check_stored
from service.models import Article, Usage
from service.pipeline.base import PipelineBase
from service.store import tables as t
from service.store.records import result_of

# An explainer of another item that this one would get: the same post (content hash),
# prompt version, model and inputs (title, author, date, url, audience, language). One
# whose check passed first, the oldest (the one written, not a copy of it); else one
# held for review (or approved by a person), unless this item's reviewer sent that
# post's held explainer back (items.review_declined).
_REUSABLE = (
    select(t.Explainer)
    .where(
        t.Explainer.content_hash == bindparam("content_hash"),
        t.Explainer.inputs_key == bindparam("inputs_key"),
        t.Explainer.prompt_version == bindparam("prompt_version"),
        t.Explainer.model == bindparam("model"),
        t.Explainer.item_id != bindparam("item_id"),
        or_(
            t.Explainer.check_ok.is_(True),
            select(t.Item.review_declined)
            .where(t.Item.id == bindparam("item_id"))
            .scalar_subquery()
            .is_distinct_from(bindparam("content_hash")),
        ),
    )
    .order_by(t.Explainer.check_ok.desc(), t.Explainer.id)
    .limit(1)
)


class Reuse(PipelineBase):
    def _reusable(
        self,
        item_id: int,
        article: Article,
        model: str,
        prompt_version: str,
        key: str,
        feed_names: tuple[str | None, ...] = (),
    ) -> tuple[Outcome, int] | None:
        """The outcome of copying another item's explainer of the same post, and that
        explainer's id; None to explain anew.

        A copy of an explainer that passed its check is taken only if it passes here too;
        one that does not is explained anew, as it would be without a twin (with repair
        rounds). A held explainer is copied as held, awaiting its own review (its check
        run again here decides, as for any copy): explaining the same inputs again would
        pay for what is most likely the same verdict. A reviewer's retry of an item held
        for review never gets a held explainer of that post back."""
        with self.read_sessions() as s:
            found = s.scalars(
                _REUSABLE,
                {
                    "content_hash": article.hash,
                    "inputs_key": key,
                    "prompt_version": prompt_version,
                    "model": model,
                    "item_id": item_id,
                },
            ).first()
            if found is None:
                return None
            source_id, passed, result = found.id, found.check_ok, result_of(found)
        # Its tokens and cost were counted where it was written: this item's are none.
        result = result.model_copy(update={"usage": Usage(), "cost_usd": 0.0})
        outcome = check_stored(
            result, article, review_derived=self.settings.review_derived, feed_names=feed_names
        )
        if passed and not outcome.publishable:
            return None
        return outcome, source_id
