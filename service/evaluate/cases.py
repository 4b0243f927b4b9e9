"""Case files: the hand-annotated figures of each evaluation case, and loading a case's
directory and its source as the pipeline cleans it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from service import clean
from service.errors import EvalCaseError, InputError, validation_problems
from service.models import Article

SOURCE_NAMES = ("source.html", "source.md", "source.txt")
_KINDS: dict[str, clean.DocumentKind] = {".html": "html", ".md": "md", ".txt": "text"}
DEFAULT_MIN_KEY_FACTS = 8


class CaseFact(BaseModel):
    """A figure of the source that a good explainer carries, written as the source writes it."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1)
    about: str = Field(min_length=1)
    keywords: list[str] = Field(min_length=1)
    key: bool = False

    @field_validator("value")
    @classmethod
    def _has_digit(cls, v: str) -> str:
        v = v.strip()
        if not any(ch.isdigit() for ch in v):
            raise ValueError(f"fact value {v!r} has no digit, so it is not a number")
        return v

    @field_validator("keywords")
    @classmethod
    def _no_blank_keyword(cls, v: list[str]) -> list[str]:
        out = [k.strip() for k in v]
        if any(not k for k in out):
            raise ValueError("blank keyword")
        return out


class KnownUnsupported(BaseModel):
    """A number of the reference explainer that this version of the source lacks."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1)
    why: str = Field(min_length=1)


class CaseFile(BaseModel):
    """The contents of ``case.yaml``."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://\S+$")
    notes: str | None = None
    facts: list[CaseFact] = Field(min_length=1)
    reference: str | None = None
    reference_unsupported: list[KnownUnsupported] = Field(default_factory=list)
    # Short posts (status incidents, feed excerpts) hold fewer than eight headline figures;
    # such a case says so here and explains why in ``notes``.
    min_key_facts: int = Field(default=DEFAULT_MIN_KEY_FACTS, ge=1)

    @model_validator(mode="after")
    def _enough_key_facts(self) -> CaseFile:
        keys = sum(1 for f in self.facts if f.key)
        if keys < self.min_key_facts:
            raise ValueError(f"{keys} key facts, fewer than min_key_facts={self.min_key_facts}")
        if self.min_key_facts < DEFAULT_MIN_KEY_FACTS and not self.notes:
            raise ValueError("min_key_facts below 8 needs notes saying why")
        if self.reference_unsupported and not self.reference:
            raise ValueError("reference_unsupported without a reference")
        return self


@dataclass(frozen=True, slots=True)
class Case:
    slug: str
    directory: Path
    spec: CaseFile
    source_path: Path

    @property
    def reference_path(self) -> Path | None:
        return self.directory / self.spec.reference if self.spec.reference else None


# No post, case file or recording comes near this: a file over it is a mistake (a disk
# image dropped into a case directory), read whole it would fill memory first.
MAX_FILE_BYTES = 16 * 1024 * 1024


def read_bytes(path: Path, what: str) -> bytes:
    """A file of the evaluation set, at most MAX_FILE_BYTES; errors name the file."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise EvalCaseError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise EvalCaseError(f"{path}: the {what} is over {MAX_FILE_BYTES:,} bytes")
    return data


def read_text(path: Path, what: str) -> str:
    """A case's UTF-8 text file (case.yaml, reference, thresholds); errors name the file."""
    try:
        return read_bytes(path, what).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalCaseError(f"{path}: {what} is not UTF-8 text") from exc


def yaml_value_error(exc: ValueError) -> str:
    """What is wrong with a YAML value its loader could not build (a date that is none,
    "2020-13-45"; an int of more digits than Python converts): the loader lets the
    constructor's ValueError out, not a YAMLError. Without Python's advice to raise its
    limit, which is no advice to the author of the file."""
    return str(exc).split("; use sys.", 1)[0]


def parse_case_file(text: str, where: str = "case.yaml") -> CaseFile:
    """Validate the text of a ``case.yaml``; errors name the file and the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise EvalCaseError(f"{where}: not valid YAML: {exc}") from exc
    except RecursionError as exc:  # thousands of nested [ or {: the parser recurses per level
        raise EvalCaseError(f"{where}: not usable YAML: nested too deeply") from exc
    except ValueError as exc:
        raise EvalCaseError(f"{where}: not usable YAML: {yaml_value_error(exc)}") from exc
    if not isinstance(data, dict):
        raise EvalCaseError(f"{where}: expected a mapping with title, url and facts")
    try:
        return CaseFile.model_validate(data)
    except ValidationError as exc:
        raise EvalCaseError(f"{where}: {validation_problems(exc, '(file)')}") from exc


def load_case(directory: Path) -> Case:
    """Read one case directory."""
    case_yaml = directory / "case.yaml"
    if not case_yaml.is_file():
        raise EvalCaseError(f"{directory}: no case.yaml")
    spec = parse_case_file(read_text(case_yaml, "case file"), str(case_yaml))
    for name in SOURCE_NAMES:
        path = directory / name
        if path.exists() and not path.is_file():
            # Else counted as missing: "found 0" beside a source.md in plain sight.
            raise EvalCaseError(f"{path}: the source is not a file")
    sources = [directory / n for n in SOURCE_NAMES if (directory / n).is_file()]
    if len(sources) != 1:
        raise EvalCaseError(
            f"{directory}: needs exactly one of {', '.join(SOURCE_NAMES)}, found {len(sources)}"
        )
    case = Case(directory.name, directory, spec, sources[0])
    ref = case.reference_path
    if ref is not None and not ref.is_file():
        raise EvalCaseError(f"{directory}: reference {spec.reference} does not exist")
    return case


def load_cases(root: Path) -> list[Case]:
    """Every case under ``root`` (one directory per case), sorted by slug."""
    if not root.is_dir():
        raise EvalCaseError(f"{root}: not a directory of cases")
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    if not dirs:
        raise EvalCaseError(f"{root}: holds no case directories")
    return [load_case(d) for d in dirs]


def load_article(case: Case) -> Article:
    """The case's source as the pipeline cleans it, titled as its feed titles it; errors
    name the case and the file (the cleaning's own do not: they serve every input)."""
    kind = _KINDS[case.source_path.suffix]
    where = f"{case.source_path}: source of case {case.slug}"
    data = read_bytes(case.source_path, f"source of case {case.slug}")
    try:
        return clean.article_from_document(
            data,
            kind=kind,
            filename=case.source_path.name,
            url=case.spec.url,
            title=case.spec.title,
        )
    except InputError as exc:
        raise EvalCaseError(f"{where}: {exc.detail}") from exc
