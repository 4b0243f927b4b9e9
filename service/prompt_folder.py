"""What a prompts folder holds (PLAINFEED_PROMPTS_DIR): the templates the llm engine
renders and the glossary the offline engine defines terms from. Apart from prompts.py,
which reads the templates, so that the settings check a folder without loading Jinja."""

from __future__ import annotations

from pathlib import Path

TEMPLATE_SUFFIX = ".md"
# The templates the llm engine uses; their versions together form its prompt version.
EXPLAIN_SET = ("explain", "explain-part", "combine", "repair")
GLOSSARY = "glossary.yaml"


def unusable(folder: Path) -> str | None:
    """Why ``folder`` is no prompts folder, or None: not a folder, no glossary.yaml (the
    offline engine explained without a definition), or without one of the llm engine's
    templates (every item it explained failed on it, "template 'explain' not found",
    while serve and worker started)."""
    if not folder.is_dir():
        why = "not a folder"
    elif not (folder / GLOSSARY).is_file():
        why = f"it has no {GLOSSARY}"
    else:
        missing = [n for n in EXPLAIN_SET if not (folder / f"{n}{TEMPLATE_SUFFIX}").is_file()]
        if not missing:
            return None
        why = f"it has no {', '.join(f'{n}{TEMPLATE_SUFFIX}' for n in missing)}"
    return f"{why}: expected the folder of prompt templates and glossary"
