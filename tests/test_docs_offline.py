"""The API's documentation pages work with no network beyond loopback: /docs (Swagger UI)
and /redoc reference only addresses of the service itself, and it serves every one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from bs4 import BeautifulSoup

from service.api.app import create_app
from tests.conftest import LiveServer, make_settings

# Any absolute address in the page, in an attribute or a script: http(s) or
# protocol-relative ("//host/...").
ABSOLUTE = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+(?::\d+)?[^\s"'<>)]*""")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("docs") / "plainfeed.db"
    with LiveServer(create_app(make_settings(f"sqlite:///{db}"), workers=0)) as server:
        yield server.url


def _assets(html: str) -> list[str]:
    """The addresses the page loads: scripts, stylesheets, icons, and the spec it shows."""
    soup = BeautifulSoup(html, "html.parser")
    found = [tag["src"] for tag in soup.find_all("script", src=True)]
    found += [tag["href"] for tag in soup.find_all("link", href=True)]
    found += [tag["spec-url"] for tag in soup.find_all("redoc", attrs={"spec-url": True})]
    for script in soup.find_all("script", src=False):
        found += re.findall(r"""\burl:\s*['"]([^'"]+)['"]""", script.get_text())
    return [str(a) for a in found]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_page_names_no_other_host(base: str, page: str) -> None:
    r = httpx.get(base + page)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    outside = [u for u in ABSOLUTE.findall(r.text) if urlsplit(u).hostname != "127.0.0.1"]
    assert outside == [], f"{page} loads from other hosts: {outside}"


@pytest.mark.parametrize(
    ("page", "kinds"),
    [
        ("/docs", {"javascript", "css", "image", "json"}),
        ("/redoc", {"javascript", "image", "json"}),
    ],
)
def test_docs_page_assets_are_served_by_the_service(base: str, page: str, kinds: set[str]) -> None:
    page_url = base + page
    assets = _assets(httpx.get(page_url).text)
    seen: set[str] = set()
    for asset in assets:
        url = urljoin(page_url, asset)
        assert urlsplit(url).netloc == urlsplit(base).netloc, asset
        r = httpx.get(url)
        assert r.status_code == 200, asset
        assert r.content, asset
        seen |= {k for k in kinds if k in r.headers["content-type"]}
    # A script, its stylesheet, the icon and the OpenAPI document, each found.
    assert seen == kinds, assets


def test_swagger_ui_asks_no_online_validator(base: str) -> None:
    """Swagger UI's default validatorUrl sends the spec to an outside validator for a
    badge; the page turns it off."""
    assert '"validatorUrl": null' in httpx.get(base + "/docs").text
