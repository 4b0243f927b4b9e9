"""check: the report (the explainer as model or text, dropped key and headline facts,
empty inputs)."""

from __future__ import annotations

from service.check import Fact, check_explainer, headline_facts
from service.check.coverage import dropped_facts
from service.models import Explainer, Section
from tests.check_helpers import SPEEDUP, S, U

# --- the report -----------------------------------------------------------------------------------


def test_explainer_model_and_text_give_the_same_verdicts() -> None:
    model = Explainer(
        title="FlyDSL: 1.10x faster",
        sections=[Section(heading="Speed", paragraphs=["It is 1.10 times faster on MI355X."])],
        takeaway="Gains of 1.10x.",
    )
    text = (
        "FlyDSL: 1.10x faster\n\n1. Speed\n\nIt is 1.10 times faster on MI355X.\n\nGains of 1.10x."
    )
    a = [(n.text, n.status) for n in check_explainer(model, SPEEDUP).numbers]
    b = [(n.text, n.status) for n in check_explainer(text, SPEEDUP).numbers]
    assert a == b == [("1.10x", S), ("1.10 times", S), ("MI355X", S), ("1.10x", S)]


def test_dropped_key_facts() -> None:
    facts = [
        Fact("1.10x", "dense GEMM speedup", ("dense",)),
        Fact("4.82x", "TopK speedup", ("TopK",)),
        Fact("1.17–3.66x", "RMSNorm range", ("RMSNorm",)),
        Fact("MI355X", "the GPU", ()),
        Fact("22", "RMSNorm cases", (), key=False),
    ]
    report = check_explainer("Dense GEMM is 1.10 times faster on MI355X.", SPEEDUP, facts)
    assert [(d.value, d.about) for d in report.dropped] == [
        ("4.82x", "TopK speedup"),
        ("1.17–3.66x", "RMSNorm range"),
    ]
    assert check_explainer("Dense GEMM is 1.10 times faster.", SPEEDUP).dropped == []


def test_dropped_key_facts_match_by_value_unit_both_ends_and_name() -> None:
    """What makes a fact carried: the same value (written with any precision), a unit that
    agrees unless one side is bare, both ends of a range, an identifier's folded name, or,
    for a value with no number, its words; in a long explainer as in a short one."""
    explainer = (
        "Latency fell to 34.1 ms on MI355X, 2–4x faster across 1.5 GiB, "
        "with 12 nodes and two teams. It runs FlyDSL. "
    )
    values = ["34.10 ms", "34.1 s", "34.1", "MI355X", "mi355x", "MI300X", "2–4x", "2–5x"]
    values += ["2x", "12%", "12", "1.5 GB", "FlyDSL", "Triton"]
    dropped = ["34.1 s", "MI300X", "2–5x", "1.5 GB", "Triton"]
    facts = [Fact(v) for v in values]
    assert [d.value for d in dropped_facts(explainer, facts)] == dropped
    # Thousands of other numbers around them change nothing.
    filler = " ".join(f"Run {i} took {i}.5 s." for i in range(1000, 3000))
    assert [d.value for d in dropped_facts(filler + explainer + filler, facts)] == dropped


def test_empty_inputs() -> None:
    assert check_explainer("", SPEEDUP).numbers == []
    report = check_explainer("It is 1.10 times faster.", "")
    assert [n.status for n in report.numbers] == [U]
    assert not report.ok


def test_headline_facts_are_the_lead_figures_with_a_unit() -> None:
    """A post without annotated facts: its title's and first paragraph's measured figures
    are the key facts an explainer is told it dropped (dates, counts and names are not)."""
    source = (
        "On Aug 31, 2026 we shipped 3 kernels: up to 90% faster decoding and 1.5–2x lower "
        "cost on MI355X, for $17 a run.\n\nLater, a 40% gain appears in the body."
    )
    facts = headline_facts(source, "FlyDSL 0.3: a 1.10x speedup")
    assert [f.value for f in facts] == ["1.10x", "90%", "1.5–2x", "$17"]
    assert facts[0].about == "the title: FlyDSL 0.3: a 1.10x speedup"
    # (The title names FlyDSL: a name the source never writes misattaches its figure.)
    report = check_explainer("FlyDSL is up to 90% faster.", source, facts, title="FlyDSL 0.3")
    assert [d.value for d in report.dropped] == ["1.10x", "1.5–2x", "$17"]
    assert report.ok  # reported, not a failure
