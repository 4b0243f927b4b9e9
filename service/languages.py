"""The language tag (BCP 47) of a feed's ``language`` setting, where it surely has one.

The setting is written for people and the prompt ("English", "French"; README), so it is
a language's name more often than a tag. Only names and tags of the languages listed
here are mapped; anything else has no sure tag (``None``), and the caller keeps its
default rather than guess (a wrong ``xml:lang`` misleads readers' hyphenation and speech).
"""

from __future__ import annotations

import re

# English names, and each language's own, of the languages the table knows, to their
# ISO 639-1 codes. Keys are case-folded.
_NAMES: dict[str, str] = {
    "arabic": "ar", "العربية": "ar",
    "bengali": "bn", "বাংলা": "bn",
    "catalan": "ca", "català": "ca",
    "chinese": "zh", "中文": "zh",
    "czech": "cs", "čeština": "cs",
    "danish": "da", "dansk": "da",
    "dutch": "nl", "nederlands": "nl",
    "english": "en",
    "finnish": "fi", "suomi": "fi",
    "french": "fr", "français": "fr",
    "german": "de", "deutsch": "de",
    "greek": "el", "ελληνικά": "el",
    "hebrew": "he", "עברית": "he",
    "hindi": "hi", "हिन्दी": "hi",
    "hungarian": "hu", "magyar": "hu",
    "indonesian": "id", "bahasa indonesia": "id",
    "italian": "it", "italiano": "it",
    "japanese": "ja", "日本語": "ja",
    "korean": "ko", "한국어": "ko",
    "norwegian": "no", "norsk": "no",
    "persian": "fa", "فارسی": "fa",
    "polish": "pl", "polski": "pl",
    "portuguese": "pt", "português": "pt",
    "romanian": "ro", "română": "ro",
    "russian": "ru", "русский": "ru",
    "spanish": "es", "español": "es",
    "swedish": "sv", "svenska": "sv",
    "thai": "th", "ไทย": "th",
    "turkish": "tr", "türkçe": "tr",
    "ukrainian": "uk", "українська": "uk",
    "vietnamese": "vi", "tiếng việt": "vi",
}  # fmt: skip
_CODES = frozenset(_NAMES.values())
# A tag: a primary language subtag, then region, script or variant subtags (pt-BR,
# zh-Hans); its primary subtag must be one the table knows ("xx" or "Ewe" is none).
_TAG = re.compile(r"([a-z]{2})(?:[-_][a-z0-9]{1,8})*", re.IGNORECASE)


def language_tag(setting: str | None) -> str | None:
    """The BCP 47 tag of ``setting`` (a tag or a language's name), or None when there is
    no sure one."""
    if not setting:
        return None
    value = setting.strip()
    named = _NAMES.get(value.casefold())
    if named is not None:
        return named
    m = _TAG.fullmatch(value)
    if m is None or m.group(1).lower() not in _CODES:
        return None
    # Written as tags are (RFC 5646 2.1.1): language lower case, region upper, script title.
    parts = re.split(r"[-_]", value)
    out = [parts[0].lower()]
    for p in parts[1:]:
        out.append(p.upper() if len(p) == 2 else p.title() if len(p) == 4 else p.lower())
    return "-".join(out)
