"""The pages in a real headless Chromium: selecting a number marks its source sentence,
a hostile feed stays inert, and the pages pass axe-core's accessibility rules.

Needs /usr/bin/chromium and /usr/bin/chromedriver (Debian packages ``chromium`` and
``chromium-driver``). Screenshots go to ``test-output/browser/`` (or
``$PLAINFEED_TEST_OUTPUT/browser/``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service import clean
from service.api.app import create_app
from service.models import ItemState
from service.store import tables as t
from tests.conftest import DATA, LiveServer, llm_settings, make_settings, wait_for
from tests.seed_db import FLYDSL_POST, FLYDSL_URL, ROOT, add_feed, add_item
from tests.stub_llm import StubLLM

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("PLAINFEED_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PLAINFEED_CHROMEDRIVER", "/usr/bin/chromedriver")
OUTPUT = Path(
    os.environ.get("PLAINFEED_TEST_OUTPUT", Path(__file__).resolve().parent.parent / "test-output")
)
AXE = DATA / "axe" / "axe.min.js"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return path
    return None


def make_driver(*extra: str, width: int = 1400, height: int = 1000) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *extra):
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="pf-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    driver._pf_profile = profile  # type: ignore[attr-defined]
    return driver


def quit_driver(driver: Any) -> None:
    driver.quit()
    shutil.rmtree(driver._pf_profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is missing; CI must install chromium and chromium-driver")
        pytest.skip(f"{missing} is missing (apt-get install chromium chromium-driver)")
    driver = make_driver()
    try:
        yield driver
    finally:
        quit_driver(driver)


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    folder = OUTPUT / "browser"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(driver: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path)), path
    assert path.stat().st_size > 1000
    return path


@pytest.fixture(scope="module")
def flydsl_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, int]]:
    """The app on loopback, with the FlyDSL post explained by the real pipeline: the LLM
    engine against the stub server replaying the 003 explainer (eval/recordings), then
    the number check, then publication (or review)."""
    folder = tmp_path_factory.mktemp("flydsl")
    with StubLLM(recordings=ROOT / "eval" / "recordings") as stub:
        settings = llm_settings(
            f"sqlite:///{folder / 'browser.db'}",
            stub.url,
            api_token="browser-token",
            llm_max_attempts=2,
            repair_rounds=0,  # the page shows 003 exactly as written, flagged or not
        )
        with LiveServer(create_app(settings, workers=1)) as server:
            ctx = server.server.config.app.state.ctx
            fid = add_feed(ctx.sessions, name="PyTorch blog")
            article = clean.article_from_document(
                FLYDSL_POST.read_bytes(), filename=FLYDSL_POST.name, url=FLYDSL_URL
            )
            iid = add_item(
                ctx.sessions,
                fid,
                title=article.title,
                text=article.text,
                state=ItemState.PENDING,
                link=FLYDSL_URL,
                author="AMD and PyTorch",
            )
            ctx.notify()

            def explained() -> bool:
                with ctx.sessions() as s:
                    state = s.get(t.Item, iid).state
                assert state not in ("failed",), state
                return state in ("published", "needs_review")

            wait_for(explained, timeout=120, interval=0.1)
            assert len(stub.calls) >= 1
            yield server, iid


def marked_ids(driver: Any) -> list[str]:
    return list(
        driver.execute_script("return [...document.querySelectorAll('.marked')].map(e => e.id)")
    )


def in_view(driver: Any, element_id: str) -> bool:
    """The element is inside the viewport and inside the source pane's visible area."""
    return bool(
        driver.execute_script(
            """
            const el = document.getElementById(arguments[0]);
            const r = el.getBoundingClientRect();
            const pane = document.getElementById('source').getBoundingClientRect();
            const top = Math.max(0, pane.top), bottom = Math.min(innerHeight, pane.bottom);
            return r.bottom > top && r.top < bottom;
            """,
            element_id,
        )
    )


def test_clicking_a_number_marks_its_source_sentence(
    browser: Any, flydsl_site: tuple[LiveServer, int], shots: Path
) -> None:
    from selenium.webdriver.common.by import By

    server, iid = flydsl_site
    browser.set_window_size(1400, 1000)
    browser.get(f"{server.url}/ui/items/{iid}")
    assert browser.title.startswith("PyTorch FlyDSL")
    numbers = browser.find_elements(By.CSS_SELECTOR, "section.explainer a.num[data-target]")
    assert len(numbers) > 20
    # the 1.10x geometric-mean speedup of BF16 dense GEMM (section 2)
    number = next(n for n in numbers if n.text.startswith("1.10"))
    assert number.get_attribute("data-check") == "supported"
    target = number.get_attribute("data-target")
    source = browser.find_element(By.ID, target)
    assert "marked" not in (source.get_attribute("class") or "")
    assert "1.10x" in source.text

    number.click()
    wait_for(lambda: marked_ids(browser) == [target], timeout=10)
    assert "active" in number.get_attribute("class")
    wait_for(lambda: in_view(browser, target), timeout=10)  # scrolled into view
    assert browser.execute_script("return location.hash") == "#" + number.get_attribute("id")
    shot(browser, shots, "flydsl-number-clicked")

    # keyboard: focusing another number moves the mark to its own sentence
    other = next(n for n in numbers if n.text.startswith("4.82"))
    other_target = other.get_attribute("data-target")
    browser.execute_script("arguments[0].focus()", other)
    wait_for(lambda: other_target in marked_ids(browser), timeout=10)
    assert marked_ids(browser) == [other_target]  # one mark at a time
    assert "4.82x" in browser.find_element(By.ID, other_target).text
    wait_for(lambda: in_view(browser, other_target), timeout=10)
    shot(browser, shots, "flydsl-number-focused")


def test_without_javascript_a_number_is_a_link_to_its_marked_sentence(
    flydsl_site: tuple[LiveServer, int], shots: Path
) -> None:
    from selenium.webdriver.common.by import By

    if _missing():
        pytest.skip("chromium is missing")
    server, iid = flydsl_site
    driver = make_driver("--blink-settings=scriptEnabled=false")
    try:
        driver.get(f"{server.url}/ui/items/{iid}")
        number = next(
            n
            for n in driver.find_elements(By.CSS_SELECTOR, "a.num[data-target]")
            if n.text.startswith("1.58")
        )
        target = number.get_attribute("data-target")
        number.click()
        wait_for(lambda: driver.current_url.endswith("#" + target), timeout=10)
        sentence = driver.find_element(By.ID, target)
        assert "1.58x" in sentence.text
        # the stylesheet marks the :target sentence (the same colour as the script does)
        assert sentence.value_of_css_property("background-color") == "rgba(255, 240, 160, 1)"
        shot(driver, shots, "flydsl-number-no-js")
    finally:
        quit_driver(driver)


def run_axe(driver: Any) -> list[dict[str, Any]]:
    driver.execute_script(AXE.read_text())
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, {
          runOnly: {type: 'tag', values: arguments[0]},
          resultTypes: ['violations'],
        }).then(
          r => done(JSON.stringify(r.violations)),
          e => done(JSON.stringify([{id: 'axe-error', help: String(e), nodes: []}])),
        );
        """,
        ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    )
    violations: list[dict[str, Any]] = json.loads(result)
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{v['id']} ({v.get('impact')}): {v['help']}: "
        + "; ".join(str(n.get("target")) for n in v.get("nodes", [])[:5])
        for v in violations
    )


@pytest.mark.parametrize("width", [1400, 375])
def test_pages_pass_axe_and_fit_a_phone(
    browser: Any, flydsl_site: tuple[LiveServer, int], shots: Path, width: int
) -> None:
    server, iid = flydsl_site
    sm = server.server.config.app.state.ctx.sessions
    add_item(sm, None, title="A failed post", text="Some text.", state=ItemState.FAILED)
    browser.set_window_size(width, 900)
    for name, path in (
        ("index", "/"),
        ("item", f"/ui/items/{iid}"),
        ("missing", "/ui/items/999999"),
    ):
        browser.get(server.url + path)
        violations = run_axe(browser)
        assert not violations, f"{path} at {width}px:\n{describe(violations)}"
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px at {width}px"
        shot(browser, shots, f"{name}-{width}px")


def test_keyboard_reaches_the_skip_link_and_every_number(
    browser: Any, flydsl_site: tuple[LiveServer, int]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    server, iid = flydsl_site
    browser.set_window_size(1400, 1000)
    browser.get(f"{server.url}/ui/items/{iid}")
    ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.execute_script("return document.activeElement.className") == "skip"
    # every number is in the tab order
    order = browser.execute_script(
        "return [...document.querySelectorAll('a.num')].filter(a => a.tabIndex >= 0).length"
    )
    assert order == len(browser.find_elements("css selector", "a.num"))
    # tabbing through the explainer reaches numbers, and each one marks its sentence
    browser.execute_script("document.getElementById('ex-title').scrollIntoView()")
    reached = 0
    for _ in range(40):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        focused = browser.execute_script("return document.activeElement")
        target = focused.get_attribute("data-target")
        if target:
            reached += 1
            assert target in marked_ids(browser)
    assert reached >= 10


def test_hostile_feed_runs_no_script(browser: Any, tmp_path: Path, shots: Path) -> None:
    import httpx
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    settings = make_settings(f"sqlite:///{tmp_path / 'hostile.db'}")
    with LiveServer(create_app(settings, workers=1)) as server:
        body = (DATA / "hostile-feed.xml").read_bytes()
        r = httpx.post(
            server.url + "/webhooks/feed",
            content=body,
            headers={"content-type": "application/rss+xml"},
            timeout=30,
        )
        assert r.status_code == 202, r.text

        def done() -> list[dict[str, Any]] | None:
            items = httpx.get(server.url + "/items", timeout=30).json()["items"]
            settled = {"published", "needs_review", "failed"}
            return items if len(items) == 2 and all(i["state"] in settled for i in items) else None

        items = wait_for(done, timeout=120, interval=0.2)
        browser.set_window_size(1200, 900)
        browser.get_log("browser")  # start from an empty console
        pages = ["/", "/?q=%3Cscript%3E"] + [f"/ui/items/{i['id']}" for i in items]
        for path in pages:
            browser.get(server.url + path)
            with pytest.raises(NoAlertPresentException):
                _ = browser.switch_to.alert.text
            flag = browser.execute_script("return typeof window.__pf_pwned")
            assert flag == "undefined", (
                f"script ran on {path}: {browser.execute_script('return window.__pf_pwned')}"
            )
            state = browser.execute_script(
                """
                const all = [...document.querySelectorAll('*')];
                return {
                  handlers: all.flatMap(e => [...e.attributes]
                    .filter(a => a.name.startsWith('on'))
                    .map(a => e.tagName + ' ' + a.name)),
                  styles: all.filter(e => e.hasAttribute('style')).length,
                  scripts: [...document.scripts].map(s => s.src),
                  js_links: [...document.querySelectorAll('[href],[src],[action],[formaction]')]
                    .flatMap(e => ['href', 'src', 'action', 'formaction']
                      .map(a => e.getAttribute(a)))
                    .filter(u => u && /^\\s*(javascript|data|vbscript):/i.test(u)),
                  frames: document.querySelectorAll(
                    'iframe,object,embed,svg,img,style,base,meta[http-equiv]').length,
                  body_visible: getComputedStyle(document.body).display !== 'none',
                };
                """
            )
            assert state["handlers"] == [], path
            assert state["styles"] == 0, path
            assert all(src.endswith("/static/trace.js") for src in state["scripts"]), path
            assert state["js_links"] == [], path
            assert state["frames"] == 0, path
            assert state["body_visible"], path
            shot(
                browser,
                shots,
                "hostile" + path.replace("/", "-").replace("?", "-").replace("%", ""),
            )
        # nothing was even attempted: the page never carried anything for the CSP to block
        console = [e["message"] for e in browser.get_log("browser")]
        assert not [m for m in console if "Content Security Policy" in m], console
        # the hostile text is shown, as text
        browser.get(server.url + "/")
        titles = " ".join(a.text for a in browser.find_elements(By.CSS_SELECTOR, "table.items a"))
        assert "Speedup of 2.5x" in titles
