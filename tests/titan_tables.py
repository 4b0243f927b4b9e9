"""The TorchTitan post's result tables (in the PyTorch blog feed's change of seed 000), as
the pipeline cleans them, and the figures a sentence checked against them has flagged."""

from __future__ import annotations

import re
from functools import cache

from service import clean
from service.check import check_explainer
from service.models import CheckStatus
from tests.check_helpers import DATA

FLAGGED = {CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED}


@cache
def results() -> str:
    """The post's "DSV3 671B Results" and "Muse Spark Open" sections, as the pipeline
    cleans them: the seed's lines end in "+" (added in that change)."""
    seed = (DATA / "seeds" / "000_960ea084d9eee19c.txt").read_text(encoding="utf-8")
    found = re.search(r"<h3>DSV3 671B Results</h3>.*?</table>.*?</table>", seed, re.S)
    assert found is not None
    html = re.sub(r"\+$", "", found.group(0), flags=re.M)
    return clean.article_from_document(
        html.encode(), kind="html", filename="titan.html", url=None, title=None
    ).text


def flagged(sentence: str) -> list[tuple[str, str]]:
    report = check_explainer(sentence, results())
    return [(n.text, n.status.value) for n in report.numbers if n.status in FLAGGED]
