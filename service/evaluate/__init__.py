"""The evaluation set: case files, metrics, thresholds and the runner.

A case is a directory ``eval/cases/<slug>/`` with the post as published
(``source.html``, ``source.md`` or ``source.txt``), a ``case.yaml`` with the figures a
good explainer carries (annotated by hand) and optionally a known-good ``reference``
explainer. The metric functions are pure; the loaders read files and ``run`` calls the
product's own steps (clean, the publishing gate, check), so the CLI only formats what it
returns.

The runner lives in ``runner`` (not ``run``) so that the ``run`` function re-exported here
does not shadow a submodule of the same name.
"""

from service.evaluate.cases import (
    DEFAULT_MIN_KEY_FACTS,
    SOURCE_NAMES,
    Case,
    CaseFact,
    CaseFile,
    KnownUnsupported,
    load_article,
    load_case,
    load_cases,
    parse_case_file,
)
from service.evaluate.metrics import (
    OVERALL_KEYS,
    CaseScore,
    contains_figure,
    contains_keyword,
    explainer_sentences,
    fact_carried,
    failed_score,
    is_known,
    key_fact_recall,
    normalise_figures,
    number_precision,
    overall,
    prose,
    score_case,
    structure_problems,
    title_ok,
)
from service.evaluate.replay import (
    REPAIR_MARK,
    Recording,
    asks_repair,
    load_recordings,
    recording_for,
    replay_client,
)
from service.evaluate.runner import ENGINES, EngineName, EvalRun, Produce, run, run_cases
from service.evaluate.thresholds import (
    EngineThresholds,
    Thresholds,
    load_thresholds,
    parse_thresholds,
    threshold_failures,
)

__all__ = [
    "DEFAULT_MIN_KEY_FACTS",
    "ENGINES",
    "OVERALL_KEYS",
    "REPAIR_MARK",
    "SOURCE_NAMES",
    "Case",
    "CaseFact",
    "CaseFile",
    "CaseScore",
    "EngineName",
    "EngineThresholds",
    "EvalRun",
    "KnownUnsupported",
    "Produce",
    "Recording",
    "Thresholds",
    "asks_repair",
    "contains_figure",
    "contains_keyword",
    "explainer_sentences",
    "fact_carried",
    "failed_score",
    "is_known",
    "key_fact_recall",
    "load_article",
    "load_case",
    "load_cases",
    "load_recordings",
    "load_thresholds",
    "normalise_figures",
    "number_precision",
    "overall",
    "parse_case_file",
    "parse_thresholds",
    "prose",
    "recording_for",
    "replay_client",
    "run",
    "run_cases",
    "score_case",
    "structure_problems",
    "threshold_failures",
    "title_ok",
]
