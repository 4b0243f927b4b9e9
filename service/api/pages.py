"""Server-rendered HTML pages: the index (feeds, recent items, search) and the item page
(an explainer beside its source, every number linked to the sentence supporting it),
with a review form for items that wait for a person.

Everything from a feed is text to Jinja2's autoescaping; the one place that makes HTML
from feed text (inline links and emphasis of the source) escapes first and passes an nh3
allow-list (``service.web.trace.inline_html``). Pages carry a strict Content-Security-
Policy: no inline script or style, nothing loaded from elsewhere.
"""

from __future__ import annotations

import hmac
import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import BeforeValidator
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from service.api.allow import methods_at
from service.api.deps import DB, Ctx
from service.api.params import BLANK_TOO, FeedFilter, Offset, blank_is_none
from service.api.schemas import NO_NUL
from service.errors import PlainfeedError
from service.models import CheckReport, CheckStatus, Explainer, ItemState
from service.pipeline import latest_explainer
from service.store import tables as t
from service.web.trace import SourceBlock, inline_html, plain_text, trace

WEB = Path(__file__).resolve().parent.parent / "web"
TEMPLATES = WEB / "templates"
STATIC = WEB / "static"

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
PAGE_SIZE = 50
MAX_FORM_BYTES = 16 * 1024

router = APIRouter(tags=["pages"])
# The pages answer their errors as HTML pages, not as problems.
_HTML: dict[str, Any] = {"text/html": {}}


def _date(value: datetime | None, time: bool = False) -> str:
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d %H:%M UTC" if time else "%Y-%m-%d")


def _usd(value: float | None) -> str:
    return f"${value or 0:.4f}"


def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters["date"] = _date
    env.filters["usd"] = _usd
    env.filters["inline"] = inline_html
    env.filters["plain"] = plain_text
    return env


ENV = _env()


def render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page with the security headers."""
    html = ENV.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def error_page(status: int, heading: str, detail: str) -> HTMLResponse:
    return render("error.html", status, heading=heading, detail=detail)


def safe_url(url: str | None) -> str | None:
    """A feed's link, only when it is an http(s) URL (never ``javascript:`` and kin)."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    if parts.scheme.lower() in ("http", "https") and parts.netloc:
        return url.strip()
    return None


def feed_label(f: t.Feed) -> str:
    return f.name or f.title or f.url


def _feed_view(f: t.Feed) -> dict[str, Any]:
    # A feed stored before URLs were checked is never fetched: the page says why beside its
    # URL, as GET /feeds does, or a reader sees a feed that simply never updates.
    return {"id": f.id, "label": feed_label(f), "url": f.url, "url_error": f.url_error}


# --- index -----------


# A query the page cannot take (a state that is none, a feed that is no id): an HTML
# page, as its other errors are (service.api.problems), not the API's problem JSON.
_BAD_QUERY: dict[int | str, dict[str, Any]] = {
    422: {"description": "A query parameter it cannot take", "content": _HTML}
}


@router.get(
    "/",
    response_class=HTMLResponse,
    responses={404: {"description": "No feed with that id", "content": _HTML}, **_BAD_QUERY},
)
def index(
    request: Request,
    s: DB,
    q: Annotated[str | None, Query(max_length=200, pattern=NO_NUL)] = None,
    # The form's "any" state is sent empty; any other state, and a feed that is no id
    # (abc, -1, past the id column), is a 422 page as for the JSON routes: they were
    # ignored, and the page listed every item under a filter the address seemed to set.
    state: Annotated[ItemState | None, Query(), BeforeValidator(blank_is_none), BLANK_TOO] = None,
    feed: Annotated[FeedFilter, BeforeValidator(blank_is_none), BLANK_TOO] = None,
    offset: Offset = 0,
) -> HTMLResponse:
    """Feeds, recent items with their state, search by title."""
    states = [st.value for st in ItemState]
    feed_id = feed
    if feed_id is not None and s.get(t.Feed, feed_id) is None:
        # As the JSON routes' feed_id (a 404): an empty list said of a mistyped or removed
        # feed what it says of a feed with nothing in it.
        return error_page(
            404, "Not found", f"There is no feed {feed_id}. It may have been removed."
        )
    conds = []
    if state is not None:
        conds.append(t.Item.state == state.value)
    if feed_id is not None:
        conds.append(t.Item.feed_id == feed_id)
    if q:
        conds.append(func.lower(t.Item.title).contains(q.lower(), autoescape=True))
    sel = (
        select(t.Item).where(*conds).order_by(*t.ITEMS_NEWEST_FIRST).limit(PAGE_SIZE).offset(offset)
    )
    total = s.scalar(select(func.count(t.Item.id)).where(*conds)) or 0
    items = list(s.scalars(sel))
    feeds = [_feed_view(f) for f in s.scalars(select(t.Feed).order_by(t.Feed.id))]
    by_id = {f["id"]: f for f in feeds}

    def page_url(at: int) -> str:
        params = {"q": q or "", "state": state.value if state else "", "feed": feed_id or ""}
        kept = {k: v for k, v in params.items() if v != ""}
        return "/?" + urlencode({**kept, "offset": at})

    return render(
        "index.html",
        q=q,
        state=state.value if state else None,
        states=states,
        feed_id=feed_id,
        current_feed=by_id.get(feed_id) if feed_id is not None else None,
        items=items,
        total=total,
        feeds=feeds,
        feeds_by_id=by_id,
        prev_url=page_url(max(0, offset - PAGE_SIZE)) if offset > 0 else None,
        next_url=page_url(offset + PAGE_SIZE) if offset + PAGE_SIZE < total else None,
    )


# --- item -----------


def _heading_levels(blocks: list[SourceBlock]) -> dict[str, int]:
    """Source headings nest under the page's h2 and never skip a level."""
    levels = [b.level for b in blocks if b.kind == "heading"]
    top = min(levels, default=1)
    out: dict[str, int] = {}
    prev = 2
    for b in blocks:
        if b.kind == "heading":
            prev = min(prev + 1, 3 + b.level - top, 6)
            out[b.id] = max(prev, 3)
            prev = out[b.id]
    return out


def _item_id(raw: str) -> int | None:
    """A row id from a page address or form, or None (no such row) for anything else;
    ``isdigit`` alone lets through digits no column holds, and other scripts' digits."""
    digits = raw.lstrip("0")  # leading zeros as the JSON routes read them ("012" is 12)
    ok = raw.isascii() and raw.isdigit() and len(digits) <= 10 and int(digits or "0") <= t.MAX_ID
    return int(digits) if ok and digits else None


def malformed_id_page(params: dict[str, Any]) -> HTMLResponse | None:
    """The 404 page of a page address whose item id is no row id ("/ui/items/abc"), as
    its GET and the review form answer it, for OPTIONS there; None for a row id."""
    raw = params.get("item_id")
    return _not_found(raw) if isinstance(raw, str) and _item_id(raw) is None else None


def _not_found(raw: str) -> HTMLResponse:
    return error_page(404, "Not found", f"There is no item {raw[:40]!r}. It may have been removed.")


def item_page(
    s: DB,
    item: t.Item,
    ctx: Ctx,
    *,
    status: int = 200,
    notice: str | None = None,
    error: str | None = None,
) -> HTMLResponse:
    ex = latest_explainer(s, item)
    feed = s.get(t.Feed, item.feed_id) if item.feed_id else None
    explainer = Explainer.model_validate(ex.body) if ex else None
    report = CheckReport.model_validate(ex.check) if ex and ex.check else None
    if explainer is not None:
        traced = trace(explainer, report, item.text)
    else:
        traced = trace(Explainer.model_construct(title="", sections=[]), None, item.text)
    return render(
        "item.html",
        status,
        item=item,
        feed=_feed_view(feed) if feed else None,
        explainer=explainer,
        t=traced,
        meta=ex,
        dropped=report.dropped if report else [],
        shape=report.shape if report else [],
        statuses=[st.value for st in CheckStatus],
        hlevels=_heading_levels(traced.blocks),
        source_url=safe_url(item.link),
        words=len(item.text.split()),
        can_review=item.state
        in (ItemState.NEEDS_REVIEW.value, ItemState.FAILED.value, ItemState.SKIPPED.value),
        token_required=bool(ctx.settings.api_token),
        notice=notice,
        error=error,
    )


@router.get(
    "/ui/items/{item_id}",
    response_class=HTMLResponse,
    responses={404: {"description": "No such item", "content": _HTML}, **_BAD_QUERY},
)
def item(item_id: str, s: DB, ctx: Ctx, done: str | None = None) -> HTMLResponse:
    """An explainer beside its source; each number links to its supporting sentence."""
    iid = _item_id(item_id)
    found = s.get(t.Item, iid) if iid is not None else None
    if found is None:
        return _not_found(item_id)
    notice = {
        "approved": "Approved and published.",
        "retry": "Queued to be explained again.",
    }.get(done or "")
    return item_page(s, found, ctx, notice=notice)


# C0 controls and DEL that str.split() does not read as white space.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f]")


@router.post(
    "/ui/items/{item_id}/review",
    response_class=HTMLResponse,
    responses={
        303: {"description": "Done: to the item's page"},
        400: {"description": "Neither approve nor retry", "content": _HTML},
        401: {"description": "Wrong or missing API token (form field `token`)", "content": _HTML},
        404: {"description": "No such item", "content": _HTML},
        409: {"description": "The item cannot be approved or retried now", "content": _HTML},
        408: {
            "description": "The form not in whole within PLAINFEED_BODY_TIMEOUT",
            "content": _HTML,
        },
        413: {"description": "Form over 16 KB", "content": _HTML},
        415: {"description": "A compressed form (Content-Encoding)", "content": _HTML},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "action": {"type": "string", "enum": ["approve", "retry"]},
                            "reviewer": {"type": "string"},
                            "token": {"type": "string"},
                        },
                        "required": ["action"],
                    }
                }
            },
        }
    },
)
async def review(item_id: str, request: Request, ctx: Ctx) -> Response:
    """Approve or retry from the page's form; the API token travels as a form field
    (a browser form cannot set an Authorization header)."""
    iid = _item_id(item_id)
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return error_page(413, "Form too large", "The review form is limited to 16 KB.")
    form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items() if v}
    action = form.get("action", "")
    return await run_in_threadpool(_review_sync, ctx, iid, item_id, form, action)


def _review_sync(
    ctx: Ctx, iid: int | None, raw_id: str, form: dict[str, str], action: str
) -> Response:
    with ctx.pipeline.read_sessions() as s:
        found = s.get(t.Item, iid) if iid is not None else None
        if found is None:
            return _not_found(raw_id)
        token = ctx.settings.api_token
        if token and not hmac.compare_digest(form.get("token", "").encode(), token.encode()):
            return item_page(s, found, ctx, status=401, error="Wrong or missing API token.")
        if action not in ("approve", "retry"):
            return item_page(s, found, ctx, status=400, error="Choose approve or retry.")
    # A control character is a space: a NUL (reviewer=a%00b) stayed in the name, and
    # PostgreSQL refused it as approved_by (a 500). A header cannot carry one.
    typed = _CONTROL.sub(" ", form.get("reviewer", ""))
    reviewer = " ".join(typed.split())[:200] or "web-form"
    try:
        if action == "approve":
            ctx.pipeline.approve(found.id, reviewer)
            done = "approved"
        else:
            ctx.pipeline.retry(found.id)
            ctx.notify()
            done = "retry"
    except PlainfeedError as exc:
        with ctx.pipeline.read_sessions() as s:
            again = s.get(t.Item, found.id)
            if again is None:
                return _not_found(raw_id)
            return item_page(s, again, ctx, status=exc.status, error=exc.detail)
    # Post/redirect/get: a reload does not send the form again.
    return RedirectResponse(f"/ui/items/{found.id}?done={done}", status_code=303)


# Every other address under /ui: the page that says there is none.
ANY_PAGE = "/ui/{rest:path}"


@router.get(ANY_PAGE, response_class=HTMLResponse, include_in_schema=False)
def unknown_page(rest: str, request: Request) -> HTMLResponse:
    """Any other page address: an HTML 404, not the API's JSON problem. An address a
    route takes with other methods (the review form's) is a 405 page naming them, as
    OPTIONS of it says: a 404 said there was nothing there."""
    if methods_at(request):
        raise HTTPException(405)
    return no_page()


def no_page() -> HTMLResponse:
    """The page of an address where there is none (GET's 404, and OPTIONS's)."""
    return error_page(404, "Not found", "There is no page at this address.")
