"""Who "we" is in a roundup: a post of sections that each introduce another project
("TorchJD is a library to train neural networks ...", "Miles is an open source
post-training framework ...") quotes each project's own words, and the "we" of a section
is that project's team ("We’re joining the PyTorch ecosystem" under TorchJD), neither the
post's authors nor its publisher."""

from __future__ import annotations

import re

from service.engines.extractive.sentences import Draft

# A sub-section's first sentence that defines a name: "TorchJD is a library ...", "SMG
# (Shepherd Model Gateway) is an engine-agnostic ...".
_DEFINES = re.compile(
    r"^([A-Z][\w.\-]*[\w](?: [A-Z][\w.\-]*[\w]){0,2})(?: \([^()]*\))? (?:is|are) (?:a|an|the)\b"
)
MIN_PROJECTS = 3  # fewer, and the sections are more likely parts of one thing


def owners(draft: Draft) -> dict[int, str]:
    """The project whose team speaks in each candidate (by ``id``) of a roundup's
    sections; empty unless at least ``MIN_PROJECTS`` sections or sub-sections each open
    by defining a different name."""
    defined: dict[tuple[int, int], str] = {}
    for c in draft.cands:
        if c.sub_index == 0 and c.kind == "prose":  # a section's or a sub-section's first
            m = _DEFINES.match(c.text)
            if m:
                defined[(c.section, c.sub)] = m.group(1)
    if len(set(defined.values())) < MIN_PROJECTS:
        return {}
    return {
        id(c): defined[(c.section, c.sub)] for c in draft.cands if (c.section, c.sub) in defined
    }
