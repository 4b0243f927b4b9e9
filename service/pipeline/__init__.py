"""The one orchestrator: the only place where the pure steps meet the database and the
network. The HTTP layer, the CLI and the workers call it; it calls the steps.

    webhook -> accept()            store the delivery, answer 202
    worker  -> process_delivery()  parse -> clean -> decide -> items (one transaction)
    worker  -> process_item()      explain -> check (-> repair) -> store -> publish
"""

from __future__ import annotations

from service.pipeline.base import PipelineBase, feed_options, latest_explainer, renew_lease
from service.pipeline.intake import Intake
from service.pipeline.items import Publishing
from service.pipeline.receive import Accepted, Receive
from service.pipeline.review import Review

__all__ = [
    "Accepted",
    "Pipeline",
    "PipelineBase",
    "feed_options",
    "latest_explainer",
    "renew_lease",
]


class Pipeline(Receive, Intake, Publishing, Review):
    """Chains the steps and does their I/O. Thread-safe: state lives in the database."""
