"""Prompt templates: files in ``prompts/``, loaded and rendered at run time.

A template is a Markdown file with YAML front matter (``name``, ``description``,
``output``, ``temperature``, ``max_tokens``) and a Jinja2 body holding two blocks,
``system`` and ``user``, rendered separately into the two chat messages. A per-feed
override directory shadows files of ``prompts/`` by name. A template's version is the
hash of its file content, so any edit gives a new version and new explainers.

Rendering uses ``StrictUndefined``: a variable the caller did not pass is a
:class:`~service.errors.TemplateError` naming it, never a silently empty string.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.config import DEFAULT_PROMPTS_DIR
from service.errors import TemplateError, validation_problems
from service.prompt_folder import EXPLAIN_SET, TEMPLATE_SUFFIX

BLOCKS = ("system", "user")

_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined,
    autoescape=False,  # prompts are plain text, not HTML
    keep_trailing_newline=False,
)


class TemplateMeta(BaseModel):
    """A template's front matter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = Field(min_length=1)
    output: str | None = Field(
        default=None, description="The schema the answer must validate as, e.g. a model path."
    )
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """A rendered template: the two chat messages and the model parameters."""

    name: str
    version: str
    system: str
    user: str
    temperature: float
    max_tokens: int | None

    @property
    def messages(self) -> list[dict[str, str]]:
        # System first: it is the fixed, cacheable prefix.
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """One loaded, validated template."""

    meta: TemplateMeta
    path: Path
    version: str  # sha256 of the file content, 12 hex digits
    variables: frozenset[str]  # every variable the body uses
    _template: jinja2.Template

    @property
    def name(self) -> str:
        return self.meta.name

    def render(self, variables: Mapping[str, Any]) -> RenderedPrompt:
        """Render both blocks; a variable used but not given is a ``TemplateError``."""
        missing = sorted(self.variables - variables.keys())
        if missing:
            raise TemplateError(
                f"template {self.name!r} ({self.path}) needs variable(s) not given: "
                + ", ".join(missing),
                template=self.name,
                missing=missing,
            )
        ctx = self._template.new_context(dict(variables))
        try:
            system, user = ("".join(self._template.blocks[b](ctx)).strip() for b in BLOCKS)
        except jinja2.UndefinedError as exc:  # e.g. an attribute missing on a given object
            raise TemplateError(f"template {self.name!r}: {exc.message}") from exc
        except jinja2.TemplateError as exc:
            raise TemplateError(f"template {self.name!r} failed to render: {exc}") from exc
        return RenderedPrompt(
            name=self.name,
            version=self.version,
            system=system,
            user=user,
            temperature=self.meta.temperature,
            max_tokens=self.meta.max_tokens,
        )


def content_version(content: str) -> str:
    """The version of a template: the hash of its content."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:12]


def _split_front_matter(content: str, path: Path) -> tuple[dict[str, Any], str]:
    if not content.startswith("---"):
        raise TemplateError(f"template {path} has no YAML front matter (it must start with ---)")
    head, sep, body = content[3:].partition("\n---")
    if not sep:
        raise TemplateError(f"template {path}: front matter is not closed by a --- line")
    try:
        data = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        raise TemplateError(f"template {path}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise TemplateError(f"template {path}: front matter must be a mapping")
    return data, body.split("\n", 1)[1] if "\n" in body else ""


def parse_template(content: str, path: Path) -> PromptTemplate:
    """Validate and compile a template's text (``path`` is for messages and the name check)."""
    data, body = _split_front_matter(content, path)
    try:
        meta = TemplateMeta.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, "front matter")
        raise TemplateError(f"template {path}: bad front matter: {problems}") from exc
    if meta.name != path.stem:
        raise TemplateError(f"template {path}: front matter name {meta.name!r} != file name")
    try:
        ast = _ENV.parse(body)
        template = _ENV.from_string(body)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"template {path}, line {exc.lineno}: {exc.message}") from exc
    absent = [b for b in BLOCKS if b not in template.blocks]
    if absent:
        raise TemplateError(f"template {path}: missing block(s) {', '.join(absent)}")
    return PromptTemplate(
        meta=meta,
        path=path,
        version=content_version(content),
        variables=frozenset(jinja2.meta.find_undeclared_variables(ast)),
        _template=template,
    )


def template_path(
    name: str, prompts_dir: Path | None = None, override_dir: Path | None = None
) -> Path:
    """Where template ``name`` is read from: the override directory shadows ``prompts/``."""
    for directory in (override_dir, prompts_dir or DEFAULT_PROMPTS_DIR):
        if directory is None:
            continue
        candidate = Path(directory) / f"{name}{TEMPLATE_SUFFIX}"
        if candidate.is_file():
            return candidate
    searched = [str(d) for d in (override_dir, prompts_dir or DEFAULT_PROMPTS_DIR) if d]
    raise TemplateError(f"template {name!r} not found in {', '.join(searched)}", template=name)


@lru_cache(maxsize=64)
def _parse_cached(path: Path, mtime_ns: int, size: int) -> PromptTemplate:
    # Keyed on mtime and size, so an edited file is read again (and gets a new version).
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"template {path} cannot be read: {exc}") from exc
    return parse_template(content, path)


def load_template(
    name: str, prompts_dir: Path | None = None, override_dir: Path | None = None
) -> PromptTemplate:
    """Load template ``name`` (``prompts/<name>.md``, or the override directory's)."""
    path = template_path(name, prompts_dir, override_dir)
    try:
        st = path.stat()
    except OSError as exc:
        raise TemplateError(f"template {path} cannot be read: {exc}") from exc
    return _parse_cached(path.resolve(), st.st_mtime_ns, st.st_size)


def load_set(
    names: Iterable[str] = EXPLAIN_SET,
    prompts_dir: Path | None = None,
    override_dir: Path | None = None,
) -> dict[str, PromptTemplate]:
    """Load several templates by name."""
    return {n: load_template(n, prompts_dir, override_dir) for n in names}


def set_version(templates: Mapping[str, PromptTemplate]) -> str:
    """One version for a set of templates: changes when any of them changes."""
    joined = "\n".join(f"{name}={templates[name].version}" for name in sorted(templates))
    return content_version(joined)


def render(
    name: str,
    variables: Mapping[str, Any],
    prompts_dir: Path | None = None,
    override_dir: Path | None = None,
) -> RenderedPrompt:
    """Load and render template ``name``."""
    return load_template(name, prompts_dir, override_dir).render(variables)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: about four characters per token."""
    return (len(text) + 3) // 4
