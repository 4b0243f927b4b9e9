"""check: a number assigned to a keyword in the source's code ("min=2, max=128") backs
the explainer's figure of what the keyword names ("a minimum of 2"), of its side; an
explainer's code line is still looked for with its keywords."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean
from service.check import check_explainer
from tests.check_helpers import S, U, verdict

SHAPE = 'Use ShapeVar("batch", min=2, max=128) for the batch dimension.'
SHAPE_HTML = (
    b"<html><body><p>Declare the batch dimension once:</p>"
    b'<pre><code>x = ShapeVar("batch", min=2, max=128)\n</code></pre>'
    b"<p>Then reuse it across inputs.</p></body></html>"
)
BOUNDS = "The batch dimension has a minimum of 2 and a maximum of 128."
RELEASE = Path(__file__).parent.parent / "eval" / "cases" / "pytorch-2-14-release" / "source.html"


def _html(data: bytes, name: str = "post.html") -> str:
    return clean.article_from_document(data, filename=name).text


@pytest.mark.parametrize(
    "source",
    [
        SHAPE,
        SHAPE.replace("min=2, max=128", "min = 2, max = 128"),  # 128 was "the hedge turns around"
        _html(SHAPE_HTML),  # a code block of an HTML post
        _html(RELEASE.read_bytes(), RELEASE.name),  # the PyTorch 2.14 post's ShapesSpec
    ],
)
def test_a_keyword_value_backs_its_minimum_and_maximum(source: str) -> None:
    # Both were unsupported, "not in the source": min=2 and max=128 were identifiers.
    for written in ("2", "128"):
        v = verdict(BOUNDS, source, written)
        assert v.status == S, v
        assert "max=128" in (v.source or "").replace(" ", "")


@pytest.mark.parametrize(
    ("explainer", "written"),
    [
        ("The batch dimension is at least 2 and at most 128.", "2"),
        ("The batch dimension is at least 2 and at most 128.", "128"),
        ("The maximum of the batch dimension is 128.", "128"),
        ('Declare it with ShapeVar("batch", min=2, max=128).', "2"),
    ],
)
def test_restated_keyword_values_are_supported(explainer: str, written: str) -> None:
    assert verdict(explainer, SHAPE, written).status == S


@pytest.mark.parametrize(
    ("explainer", "written"),
    [
        # The keyword states the side: min=2 is no maximum, max=128 no minimum.
        ("The batch dimension has a maximum of 2.", "2"),
        ("The batch dimension has a minimum of 128.", "128"),
        ("The batch dimension is at most 2.", "2"),
        ("The batch dimension is at least 128.", "128"),
    ],
)
def test_a_keyword_value_of_the_other_side_is_unsupported(explainer: str, written: str) -> None:
    assert verdict(explainer, SHAPE, written).status == U


def test_a_json_field_states_its_side() -> None:
    source = 'Set the limits:\n\n```json\n{"max_len": 4096, "min_len": 16}\n```\n'
    assert verdict("Inputs may be up to 4096 long.", source, "4096").status != U
    assert verdict("Inputs are at least 4096 long.", source, "4096").status == U
    assert verdict("The minimum length is 16.", source, "16").status == S


def test_an_explainer_code_line_is_looked_for_with_its_keywords() -> None:
    # The line's 4 alone is the source's "4 GPUs": min=4 is not in the source.
    source = SHAPE + " It ran on 4 GPUs."
    line = 'x = ShapeVar("batch", min=4, max=128)'
    report = check_explainer(f"Declare it:\n\n```python\n{line}\n```\n", source)
    assert [(n.text, n.status) for n in report.numbers] == [("4", U), ("128", S)]


def test_settings_and_names_stay_identifiers() -> None:
    source = "Run with TP=1 and fp8=True on gfx950."
    report = check_explainer("It runs with TP=1 on gfx950 in fp8=True mode.", source)
    assert [(n.text, n.kind, n.status) for n in report.numbers] == [
        ("TP=1", "identifier", S),
        ("gfx950", "identifier", S),
        ("fp8=True", "identifier", S),
    ]
