"""A conference programme's list line as a sentence: "Bill Jia, Google Cloud: Workload
Fungibility in the Age of Agents", under "Featured keynote speakers and their scheduled
sessions include:", reads "Bill Jia (Google Cloud) presents “Workload Fungibility in the
Age of Agents”."

Such a line has no verb of its own: as a list item it was dropped as a fragment, and a
post that is mostly its programme kept its opening paragraph alone. The verb is the one
its lead announces (speakers and their sessions); the words are the post's.
"""

from __future__ import annotations

import re

# A lead that announces speakers with their sessions or talks.
_PROGRAMME_LEAD = re.compile(
    r"\b(speakers?|presenters?|keynotes?)\b.*\b(sessions?|talks?|keynotes?|presentations?)\b"
    r"|\b(sessions?|talks?)\b.*\b(speakers?|presenters?)\b",
    re.IGNORECASE,
)
# "Name[ and Name], Organisation: Session title". A name is a few capitalised words.
_NAME = r"[A-Z][\w.’'\-]*(?: [A-Za-z][\w.’'\-]*){0,3}"
_LINE = re.compile(
    rf"^(?P<who>{_NAME}(?:,? and {_NAME})?), (?P<org>[A-Z][^,:]{{1,50}}): (?P<title>.+?)\.?$"
)
# A label before the session's own title ("Sponsored Keynote: ...").
_LABEL = re.compile(r"^(?:sponsored\s+)?(?:keynote|session|talk|panel)\s*:\s*", re.IGNORECASE)


def session_sentence(item: str, lead: str) -> str | None:
    """``item`` as a sentence saying who presents which session, when its ``lead`` (the
    sentence before the list) announces speakers and sessions; ``None`` when it is no
    such line, or when its title only names the speaker again ("Keynote: Simon Mo,
    Inferact": a name and a job title, README)."""
    if not _PROGRAMME_LEAD.search(lead):
        return None
    m = _LINE.match(item.strip())
    if m is None:
        return None
    who, org = m.group("who"), m.group("org").strip()
    title = _LABEL.sub("", m.group("title").strip())
    if not title or who.split(" and ")[0] in title or any(ch.isdigit() for ch in org):
        return None
    verb = "present" if " and " in who else "presents"
    return f"{who} ({org}) {verb} “{title}”."
