"""Bad input on the command line: a one-line message on stderr and exit status 2, never a
traceback, a garbage explainer or a check that passes on nothing: the files given to
explain, check and eval, and Ctrl-C.

Each case runs ``plainfeed`` as a real process, as a user or a script would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import BINARY, CASES, FLYDSL, ROOT, assert_bad_input, one_case, plainfeed

pytestmark = pytest.mark.slow


def test_a_binary_file_is_not_explained_or_checked(tmp_path: Path) -> None:
    blob = tmp_path / "figure.png"
    blob.write_bytes(BINARY)
    explainer = tmp_path / "explainer.md"
    explainer.write_text("# FlyDSL\n\nBF16 dense GEMM ran 1.10x faster.\n")
    done = plainfeed(tmp_path, "explain", blob)
    assert_bad_input(done, "binary data")
    assert done.stdout == ""
    assert_bad_input(
        plainfeed(tmp_path, "check", "--explainer", explainer, "--source", blob), "binary data"
    )


def test_an_empty_explainer_does_not_pass_the_check(tmp_path: Path) -> None:
    empty = tmp_path / "explainer.md"
    empty.write_text("\n  \n")
    done = plainfeed(tmp_path, "check", "--explainer", empty, "--source", FLYDSL)
    assert_bad_input(done, "is empty")


def test_nul_bytes_in_an_explainer_are_dropped_as_in_the_source(tmp_path: Path) -> None:
    text = "# FlyDSL\n\nBF16 dense GEMM ran 1.10x faster than the faster of ATen and Triton.\n"
    plain = tmp_path / "plain.md"
    plain.write_text(text)
    nul = tmp_path / "nul.md"
    nul.write_text(text.replace("1.10x", "1.10x\x00"))
    want = plainfeed(tmp_path, "check", "--explainer", plain, "--source", FLYDSL, "--json")
    assert want.returncode == 0, want.stdout
    done = plainfeed(tmp_path, "check", "--explainer", nul, "--source", FLYDSL, "--json")
    assert (done.returncode, done.stdout) == (want.returncode, want.stdout)


def test_a_file_over_the_size_cap_is_refused_at_once(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("The kernel ran 1.10x faster on 256 GPUs. " * 2000)
    env = {"PLAINFEED_FETCH_MAX_BYTES": "10000"}
    assert_bad_input(plainfeed(tmp_path, "explain", big, env=env), "PLAINFEED_FETCH_MAX_BYTES")
    done = plainfeed(tmp_path, "check", "--explainer", big, "--source", FLYDSL, env=env)
    assert_bad_input(done, "over the 10,000-byte cap")


def test_eval_json_to_an_unwritable_path_fails_before_the_run(tmp_path: Path) -> None:
    a_file = tmp_path / "metrics"
    a_file.write_text("")
    for out, message in ((tmp_path, "is a directory"), (a_file / "m.json", "is a file")):
        done = plainfeed(tmp_path, "eval", "--json", out)
        assert_bad_input(done, message)
        assert done.stdout == ""  # failed before explaining anything


def test_eval_case_files_that_are_not_utf8(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(CASES / "flydsl-amd-gpus", cases / "flydsl-amd-gpus")
    reference = cases / "flydsl-amd-gpus" / "reference.md"
    reference.write_bytes(BINARY)
    done = plainfeed(tmp_path, "eval", "--cases", cases, "--engine", "reference")
    assert_bad_input(done, f"{reference}: reference is not UTF-8 text")
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_bytes("engines: {}\n# caf\xe9\n".encode("latin-1"))
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, "thresholds file is not UTF-8 text")


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "the md document holds no text"), (BINARY, "the document is binary data")],
)
def test_an_eval_source_without_text_names_the_case_and_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    cases = one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.write_bytes(content)
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: source of case flydsl-amd-gpus: {message}")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_an_eval_source_that_cannot_be_read_names_the_case(tmp_path: Path) -> None:
    cases = one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.unlink()
    source.symlink_to("/proc/self/mem")  # a regular file by stat; reading it fails (EIO)
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: cannot read the source of case flydsl-amd-gpus")


def test_an_eval_source_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    from service.evaluate.cases import MAX_FILE_BYTES

    cases = one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    with source.open("r+b") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: a disk image dropped into the case
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(
        done, f"{source}: the source of case flydsl-amd-gpus is over {MAX_FILE_BYTES:,} bytes"
    )


def test_an_eval_source_that_is_a_directory_says_so(tmp_path: Path) -> None:
    cases = one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.unlink()
    source.mkdir()
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: the source is not a file")


def test_an_eval_recording_that_cannot_be_read_names_it(tmp_path: Path) -> None:
    recordings = tmp_path / "recordings"
    shutil.copytree(ROOT / "eval" / "recordings", recordings)
    (recordings / "x.json").mkdir()  # was an IsADirectoryError traceback
    done = plainfeed(tmp_path, "eval", "--engine", "llm", "--recordings", recordings)
    assert_bad_input(done, f"{recordings / 'x.json'}: cannot read the recording: Is a directory")


@pytest.mark.parametrize("nested", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1"])
def test_an_explainer_nested_too_deeply_is_bad_input(tmp_path: Path, nested: str) -> None:
    explainer = tmp_path / "explainer.json"
    explainer.write_text(nested)  # was a RecursionError traceback from json
    done = plainfeed(tmp_path, "check", "--explainer", explainer, "--source", FLYDSL)
    assert_bad_input(done, f"explainer file {explainer} is not an explainer in JSON: nested")


def test_eval_yaml_nested_too_deeply_is_bad_input(tmp_path: Path) -> None:
    cases = one_case(tmp_path)
    case_yaml = cases / "flydsl-amd-gpus" / "case.yaml"
    case_yaml.write_text("[" * 5000)  # was a RecursionError traceback from yaml
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{case_yaml}: not usable YAML: nested too deeply")
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("engines: " + "{a: " * 5000)
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, f"{thresholds}: not usable YAML: nested too deeply")


def test_ctrl_c_while_the_command_loads_is_exit_130_without_a_traceback() -> None:
    # A real SIGINT, delivered while the command's module imports (seconds on a busy
    # machine): a finder that sends it when the import system looks the module up.
    probe = (
        "import os, signal, sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'service.cli.eval':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from service.cli import main\n"
        "main(['eval', '--engine', 'reference'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 130


def test_an_empty_source_is_named_as_such(tmp_path: Path) -> None:
    assert_bad_input(plainfeed(tmp_path, "explain", ""), "SOURCE is empty")  # not "not a file: ."


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "{long}"),
        ("check", "--explainer", "{long}", "--source", str(FLYDSL)),
        ("check", "--explainer", str(FLYDSL), "--source", "{long}"),
        ("eval", "--cases", "{long}"),
        ("eval", "--thresholds", "{long}"),
        ("eval", "--json", "{long}"),
        ("eval", "--engine", "llm", "--recordings", "{long}"),
    ],
)
def test_a_file_name_the_system_refuses_is_bad_input(tmp_path: Path, args: tuple[str, ...]) -> None:
    # Longer than a file name may be (ENAMETOOLONG): stat() raised it, a traceback.
    long = str(tmp_path / ("a" * 300))
    done = plainfeed(tmp_path, *(a.replace("{long}", long) for a in args))
    assert_bad_input(done, "File name too long")


@pytest.mark.parametrize("option", ["--explainer", "--source"])
def test_check_names_a_url_given_for_a_file_as_given(tmp_path: Path, option: str) -> None:
    # Read as a path, "https://example.org/post" was "file not found: https:/example.org/post".
    other = "--source" if option == "--explainer" else "--explainer"
    done = plainfeed(tmp_path, "check", option, "https://example.org/post", other, FLYDSL)
    assert_bad_input(done, "https://example.org/post is a URL")


@pytest.mark.parametrize(
    "args",
    [("explain", "-"), ("check", "--explainer", "-", "--source", str(FLYDSL))],
)
def test_a_dash_for_standard_input_says_it_is_not_read(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    # Was "file not found: -", as if a file of that name were missing.
    done = plainfeed(tmp_path, *args)
    assert_bad_input(done, "standard input ('-') is not read; give a file path")


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [("m.json", "[1, 2]", "a list"), ("m.json", "42", "a number")],
)
def test_an_explainer_in_json_that_is_no_object_says_what_it_is(
    tmp_path: Path, name: str, text: str, what: str
) -> None:
    # Was "(file): Input should be a valid dictionary or instance of Explainer".
    explainer = tmp_path / name
    explainer.write_text(text)
    done = plainfeed(tmp_path, "check", "--explainer", explainer, "--source", FLYDSL)
    assert_bad_input(done, f"(file): expected a mapping of names to values, not {what}")


def test_an_empty_thresholds_file_says_it_is_empty(tmp_path: Path) -> None:
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("")
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, "expected a mapping of names to values, not nothing (it is empty)")
