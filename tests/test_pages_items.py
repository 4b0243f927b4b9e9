"""The HTML pages that show items: the index, an item page with its numbers traced to the
source, its check summary and headings, and feed content rendered inert."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from service.models import CheckReport, CheckStatus, Explainer, ItemState, NumberVerdict, Section
from tests.pages_helpers import page_client, seed_ids, sessions, soup
from tests.seed_db import add_feed, add_item


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    yield from page_client(db_url)


@pytest.fixture
def seeded(client: TestClient) -> dict[str, int]:
    return seed_ids(client)


def test_index_lists_feeds_items_and_states_and_searches_titles(
    client: TestClient, seeded: dict[str, int]
) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    page = soup(r.text)
    assert page.html is not None and page.html["lang"] == "en"
    rows = page.select("table.items tbody tr")
    assert len(rows) == 3
    states = {
        row.select_one("a").get_text(): row.select_one(".state")["data-state"] for row in rows
    }
    assert states == {
        "Faster kernels on MI355X": "needs_review",
        "An older post about compilers": "published",
        "A broken post": "failed",
    }
    assert page.select_one(f'a[href="/ui/items/{seeded["item"]}"]') is not None
    assert page.select_one(f'a[href="/feeds/{seeded["feed"]}/feed.atom"]') is not None
    assert page.select_one('a[href="/docs"]') is not None

    found = soup(client.get("/", params={"q": "COMPILERS"}).text).select("table.items tbody tr")
    assert [row.select_one("a").get_text() for row in found] == ["An older post about compilers"]
    failed = soup(client.get("/", params={"state": "failed"}).text).select("table.items tbody tr")
    assert [row.select_one("a").get_text() for row in failed] == ["A broken post"]
    # a search with LIKE wildcards matches them literally
    assert not soup(client.get("/", params={"q": "%"}).text).select("table.items tbody tr")


def test_the_index_dates_each_post_by_the_date_it_is_listed_by(client: TestClient) -> None:
    """The list is newest post first; its "Published" column showed when Plainfeed
    published an explainer instead (one day for a whole feed sent at once, the posts'
    own dates nowhere), and a post's date only while it had no explainer."""
    sm = sessions(client)
    fid = add_feed(sm, name="Kernel blog")
    explainer = Explainer(title="Posts", sections=[Section(heading="H", paragraphs=["P."])])
    for title, day in [("Older post", 6), ("Newer post", 20)]:
        add_item(
            sm, fid, title=title, text="A post.", explainer=explainer, report=CheckReport(),
            published=datetime(2026, 8, day, 12, tzinfo=UTC),
        )  # fmt: skip
    add_item(sm, fid, title="Undated post", text="A post.", state=ItemState.PENDING)
    rows = soup(client.get("/").text).select("table.items tbody tr")
    listed = [(r.select_one("a").get_text(), r.select("td")[-1].get_text()) for r in rows]
    today = datetime.now(UTC).date().isoformat()
    assert listed == [
        ("Undated post", today),  # stored now: listed first, by that date
        ("Newer post", "2026-08-20"),
        ("Older post", "2026-08-06"),
    ]


def test_pages_carry_a_strict_content_security_policy(
    client: TestClient, seeded: dict[str, int]
) -> None:
    for path in ("/", f"/ui/items/{seeded['item']}", "/ui/items/404404"):
        csp = client.get(path).headers["content-security-policy"]
        assert "default-src 'none'" in csp
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp


def test_item_page_links_every_number_to_its_source(
    client: TestClient, seeded: dict[str, int]
) -> None:
    r = client.get(f"/ui/items/{seeded['item']}")
    assert r.status_code == 200
    page = soup(r.text)
    nums = page.select("section.explainer a.num")
    assert [(a.get_text(strip=True), a["data-check"]) for a in nums] == [
        ("MI355X(supported)", "supported"),
        ("1.10x(supported)", "supported"),
        ("8(derived)", "derived"),
        ("1.13x(misattached)", "misattached"),
        ("42(unsupported)", "unsupported"),
    ]
    by_text = {a.contents[0]: a for a in nums}
    # a supported number points at the sentence that supports it, which exists
    target = by_text["1.10x"]["href"].lstrip("#")
    assert by_text["1.10x"]["data-target"] == target
    sentence = page.find(id=target)
    assert sentence is not None and "sent" in sentence["class"]
    assert sentence.get_text() == "The new kernel is 1.10x faster on MI355X."
    assert page.find(id=by_text["8"]["href"].lstrip("#")).get_text() == "It was measured on 8 GPUs."
    # a number from a table points at its row
    row = page.find(id=by_text["1.13x"]["href"].lstrip("#"))
    assert row.name == "tr" and [td.get_text() for td in row.find_all("td")] == [
        "Llama-3.1-8B",
        "1.13x",
    ]
    # an unsupported number has nothing to point at but its line in the check table
    assert "data-target" not in by_text["42"].attrs
    assert page.find(id=by_text["42"]["href"].lstrip("#")).name == "tr"
    # every number is reachable by keyboard: links with an href
    assert all(a.name == "a" and a.get("href") for a in nums)


def test_item_page_shows_check_summary_dropped_facts_and_provenance(
    client: TestClient, seeded: dict[str, int]
) -> None:
    page = soup(client.get(f"/ui/items/{seeded['item']}").text)
    summary = " ".join(page.select_one(".check .summary").get_text().split())
    assert "5 numbers checked" in summary
    assert "2 supported" in summary and "1 derived" in summary
    assert "1 unsupported" in summary and "1 misattached" in summary
    assert "2.04x: MXFP8 whole-request speedup" in page.select_one("ul.dropped").get_text()
    assert page.select_one("ul.shape").get_text() == "12 sections, want 1..7"
    clean = soup(client.get(f"/ui/items/{seeded['published']}").text)
    assert clean.select_one("ul.shape") is None
    rows = {
        r.select_one("td").get_text(): r.find_all("td")
        for r in page.select("table.numbers tbody tr")
    }
    assert rows["1.10x"][2].a.get_text() == "The new kernel is 1.10x faster on MI355X."  # no **
    assert "about a model, not the kernel" in rows["1.13x"][2].get_text()
    assert "not in the source" in rows["42"][2].get_text()
    meta = " ".join(page.select_one("section.meta").get_text().split())
    for expected in ("llm", "stub-model", "explain@1", "1200 prompt + 800 completion", "$0.0007"):
        assert expected in meta
    assert page.select_one(".ex-section pre code").get_text() == "speed = 1.10"
    src = page.select_one('a[href="https://example.org/posts/faster-kernels"]')
    assert src is not None and "noreferrer" in src["rel"]


def test_source_headings_nest_under_the_page_without_skipping(
    client: TestClient, seeded: dict[str, int]
) -> None:
    page = soup(client.get(f"/ui/items/{seeded['item']}").text)
    levels = [int(h.name[1]) for h in page.find_all(re.compile(r"^h[1-6]$"))]
    assert levels[0] == 1
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels))
    assert [h.get_text() for h in page.select(".source .src-h")] == ["Faster kernels", "Models"]


def test_item_without_explainer_shows_its_state_and_error(client: TestClient) -> None:
    sm = sessions(client)
    iid = add_item(
        sm, None, title="Pending <post>", text="Some text with 3 numbers.", state=ItemState.PENDING
    )
    page = soup(client.get(f"/ui/items/{iid}").text)
    assert "No explainer yet: this item is pending." in page.get_text()
    assert page.select_one("section.review") is None
    assert page.select_one(".source p .sent").get_text() == "Some text with 3 numbers."


HOSTILE_TITLE = "2.5x <script>window.__pf_pwned=1</script><img src=x onerror=alert(1)>"
HOSTILE_TEXT = """# Results <script>alert("h")</script>

The kernel is 2.5x faster. <img src="x" onerror="alert(1)"> Read [this](javascript:alert(1))
and [that](https://ok.example/" onmouseover="alert(1)).

<style>body { display: none }</style> <a href="javascript:alert(1)">link</a>
**<b onclick=alert(1)>bold</b>**

| <script>x</script> | 2.5x |
| --- | --- |
| <svg onload=alert(1)> | `<iframe src=javascript:alert(1)>` |
"""


def assert_inert(html: str) -> None:
    page = soup(html)
    scripts = page.find_all("script")
    assert [s.get("src") for s in scripts] in ([], ["/static/trace.js"])
    assert all(not s.string for s in scripts)
    assert not page.find_all(["style", "iframe", "svg", "img", "object", "embed", "base"])
    assert not page.find_all("meta", attrs={"http-equiv": True})
    # the only form is the review form, posting to this site
    assert all(
        f["action"].startswith("/ui/items/")
        for f in page.find_all("form")
        if f.get("method") == "post"
    )
    for tag in page.find_all(True):
        for attr, value in tag.attrs.items():
            assert not attr.lower().startswith("on"), (tag.name, attr)
            assert attr != "style", tag.name
            if attr in ("href", "src", "action", "formaction"):
                assert not str(value).strip().lower().startswith(("javascript:", "data:")), value


def test_hostile_feed_content_renders_inert(client: TestClient) -> None:
    sm = sessions(client)
    ex = Explainer(
        title="<script>alert('ex')</script> 2.5x",
        sections=[
            Section(
                heading="<img src=x onerror=alert(1)>",
                paragraphs=["It is 2.5x <b onclick=x>faster</b>."],
            )
        ],
    )
    report = CheckReport(
        numbers=[
            NumberVerdict(
                text="2.5x",
                kind="quantity",
                status=CheckStatus.SUPPORTED,
                sentence="It is 2.5x <b onclick=x>faster</b>.",
                source="The kernel is 2.5x faster.",
                source_block=1,
            )
        ]
    )
    iid = add_item(
        sm,
        add_feed(sm, url="https://hostile.example/feed", name="<script>alert('feed')</script>"),
        title=HOSTILE_TITLE,
        text=HOSTILE_TEXT,
        explainer=ex,
        report=report,
        state=ItemState.NEEDS_REVIEW,
        link="javascript:alert(1)",
        author='<b onmouseover="alert(1)">Mallory</b>',
    )
    for path in ("/", f"/ui/items/{iid}", "/?q=%3Cscript%3E"):
        r = client.get(path)
        assert r.status_code == 200
        assert_inert(r.text)
    page = soup(client.get(f"/ui/items/{iid}").text)
    # shown as text, not dropped
    assert "<script>window.__pf_pwned=1</script>" in page.get_text()
    assert "javascript:alert(1)" not in [a.get("href") for a in page.find_all("a")]
    # the good link survives, the one smuggling an attribute does not become one
    assert page.select_one('.source a[href^="javascript"]') is None
    assert page.select_one(".source a.num") is None
    assert page.select_one("section.explainer a.num")["data-check"] == "supported"
