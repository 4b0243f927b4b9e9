"""Prometheus metrics (all names prefixed ``plainfeed_``). Gauges that describe the
database (items by state, queue depth) are collected at scrape time by the API."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

DELIVERIES = Counter("plainfeed_deliveries_total", "Webhook deliveries by outcome", ["outcome"])
ITEMS_CREATED = Counter("plainfeed_items_created_total", "Items created or re-queued", ["kind"])
EXPLAIN_SECONDS = Histogram(
    "plainfeed_explain_seconds",
    "Time to write one explainer",
    ["engine"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)
CHECK_SECONDS = Histogram(
    "plainfeed_check_seconds",
    "Time of one number check",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5),
)
CHECK_NUMBERS = Counter("plainfeed_check_numbers_total", "Numbers checked, by status", ["status"])
EXPLAINERS_REUSED = Counter(
    "plainfeed_explainers_reused_total",
    "Explainers copied from another item of the same post (same content, prompt, model and"
    " inputs) instead of written anew",
)
ITEMS_WAITED = Counter(
    "plainfeed_items_waited_total",
    "Items put back to wait for the explainer another worker is writing of the same post",
)
ITEM_OUTCOMES = Counter("plainfeed_item_outcomes_total", "Item processing outcomes", ["state"])
LLM_CALLS = Counter("plainfeed_llm_calls_total", "LLM calls", ["model"])
LLM_TOKENS = Counter("plainfeed_llm_tokens_total", "LLM tokens", ["model", "kind"])
LLM_COST = Counter("plainfeed_llm_cost_usd_total", "LLM cost in USD", ["model"])
LEASE_EXPIRIES = Counter(
    "plainfeed_lease_expiries_total", "Jobs taken over after their lease expired", ["queue"]
)
OUTBOUND = Counter(
    "plainfeed_outbound_deliveries_total",
    "Outbound webhook attempts by outcome (delivered, retry, failed, gone, cancelled)",
    ["outcome"],
)
