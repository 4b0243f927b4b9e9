from __future__ import annotations

import json
import logging

import pytest

from service.logsetup import JsonFormatter, setup_logging


def test_json_lines_carry_the_message_level_and_extra_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "service.worker",
            "levelname": "WARNING",
            "msg": "lease lost on %s",
            "args": ("items 7",),
            "item_id": 7,
        }
    )
    line = JsonFormatter().format(record)
    data = json.loads(line)
    assert data["msg"] == "lease lost on items 7"
    assert data["level"] == "warning" and data["logger"] == "service.worker"
    assert data["item_id"] == 7 and "ts" in data


def test_setup_switches_the_root_handler_to_json(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging("json", "INFO")
    try:
        logging.getLogger("plainfeed.test").info("hello", extra={"feed_id": 3})
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert json.loads(err)["feed_id"] == 3
    finally:
        setup_logging("text", "WARNING")
