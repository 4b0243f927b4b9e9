"""Thresholds: the minimums each engine must meet (eval/thresholds.yaml)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.errors import EvalCaseError, validation_problems
from service.evaluate.cases import read_text, yaml_value_error
from service.evaluate.metrics import CaseScore, overall


class EngineThresholds(BaseModel):
    """The minimums one engine must meet (see eval/thresholds.yaml)."""

    model_config = ConfigDict(extra="forbid")

    number_precision: float = Field(default=1.0, ge=0, le=1)  # every case
    misattached: int = Field(default=0, ge=0)  # every case, at most
    key_fact_recall: float = Field(default=0.0, ge=0, le=1)  # overall mean
    reading_grade: float = 12.0  # overall mean, at most
    words: tuple[int, int] = (300, 900)  # every long-source case
    short_words: tuple[int, int] = (20, 300)  # every short-source case
    structure_ok: Literal["all", "any", "none"] = "all"  # "none": reported, not required


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid")

    short_source_words: int = Field(default=400, ge=0)
    engines: dict[str, EngineThresholds]


def parse_thresholds(text: str, where: str = "thresholds.yaml") -> Thresholds:
    try:
        return Thresholds.model_validate(yaml.safe_load(text))
    except yaml.YAMLError as exc:
        raise EvalCaseError(f"{where}: {exc}") from exc
    except RecursionError as exc:  # thousands of nested [ or {: the parser recurses per level
        raise EvalCaseError(f"{where}: not usable YAML: nested too deeply") from exc
    except ValidationError as exc:
        raise EvalCaseError(f"{where}: {validation_problems(exc, '(file)')}") from exc
    except ValueError as exc:  # after ValidationError, one of its kind
        raise EvalCaseError(f"{where}: not usable YAML: {yaml_value_error(exc)}") from exc


def load_thresholds(path: Path) -> Thresholds:
    if not path.is_file():
        raise EvalCaseError(f"{path}: no thresholds file")
    return parse_thresholds(read_text(path, "thresholds file"), str(path))


def threshold_failures(scores: Sequence[CaseScore], limits: EngineThresholds) -> list[str]:
    """Every way the run falls below ``limits``; empty when it meets them."""
    out: list[str] = []
    for s in scores:
        if s.error:
            out.append(f"{s.slug}: {s.error}")
            continue
        if s.number_precision_adjusted < limits.number_precision:
            out.append(
                f"{s.slug}: number precision {s.number_precision_adjusted:.3f} "
                f"< {limits.number_precision} (unsupported: {', '.join(s.unsupported)})"
            )
        if s.misattached > limits.misattached:
            out.append(f"{s.slug}: {s.misattached} misattached > {limits.misattached}")
        lo, hi = limits.short_words if s.short else limits.words
        if not lo <= s.words <= hi:
            out.append(f"{s.slug}: {s.words} words, want {lo}..{hi}")
        if limits.structure_ok == "all" and not s.structure_ok:
            out.append(f"{s.slug}: structure: {'; '.join(s.structure_problems)}")
    if limits.structure_ok == "any" and scores and not any(s.structure_ok for s in scores):
        out.append("no case has the explainer structure")
    total = overall(scores)
    if scores and total["key_fact_recall"] < limits.key_fact_recall:
        out.append(
            f"overall key-fact recall {total['key_fact_recall']:.3f} < {limits.key_fact_recall}"
        )
    if scores and total["reading_grade"] > limits.reading_grade:
        out.append(f"overall reading grade {total['reading_grade']:.2f} > {limits.reading_grade}")
    return out
