"""JSON and YAML that parse but hold a value Python will not build (a number of more
digits than it converts to an int, 4,300; in YAML, a date that is none): the loaders let
a plain ValueError out, not their own error, and each reader of such a file or document
says what is wrong instead of leaving with a traceback. (The HTTP API's bodies:
tests/test_api_conformance.py.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from service import websub
from tests.cli_helpers import FLYDSL, assert_bad_input, one_case, plainfeed

DIGITS = "9" * (sys.get_int_max_str_digits() + 1)

pytestmark = pytest.mark.slow


def test_an_explainer_with_a_number_too_long_is_bad_input(tmp_path: Path) -> None:
    explainer = tmp_path / "explainer.json"
    explainer.write_text('{"title": "T", "sections": [], "n": ' + DIGITS + "}")
    done = plainfeed(tmp_path, "check", "--explainer", explainer, "--source", FLYDSL)
    assert_bad_input(
        done,
        f"explainer file {explainer} is not an explainer in JSON: a number has more than",
    )


@pytest.mark.parametrize(
    ("value", "says"),
    [(DIGITS, "Exceeds the limit (4300 digits)"), ("2020-13-45", "month must be in 1..12")],
)
def test_eval_yaml_with_a_value_python_will_not_build_is_bad_input(
    tmp_path: Path, value: str, says: str
) -> None:
    cases = one_case(tmp_path)
    case_yaml = cases / "flydsl-amd-gpus" / "case.yaml"
    case_yaml.write_text(f"n: {value}\n" + case_yaml.read_text())
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{case_yaml}: not usable YAML: {says}")
    assert "sys.set_int_max_str_digits" not in done.stderr  # Python's advice, not the author's
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text(f"engines: {{a: {value}}}\n")
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, f"{thresholds}: not usable YAML: {says}")


def test_a_json_feed_with_a_number_too_long_advertises_no_hub() -> None:
    # `plainfeed feeds subscribe` reads the feed's hubs from its document: a JSON Feed
    # with such a number left discover() with a ValueError.
    body = b'{"hubs": [{"url": "https://hub.example/"}], "n": ' + DIGITS.encode() + b"}"
    found = websub.discover([], body)
    assert found.hubs == () and found.self_url is None
