"""Prompt size per item of the PyTorch feed: raw HTML, cleaned text, prompt tokens.

    PYTHONPATH=. python -m bench.tokens [FEED]

Tokens are estimated as characters / 4 (no tokenizer). Bars: the fixed part of the
`explain` prompt (its system message, the cacheable prefix) is at most 1,500 tokens,
and cleaning keeps at most 40% of the raw HTML's characters over the feed. For scale,
it also reports each item's <item> XML size and its plain text (BeautifulSoup's
get_text, whitespace collapsed): a lower bound for any cleaner that keeps all the words.
Writes bench/results/tokens.json.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import feedparser
from bs4 import BeautifulSoup

from service import prompts
from service.clean import clean_html
from service.engines.base import DEFAULT_AUDIENCE

ROOT = Path(__file__).resolve().parent.parent
FEED = ROOT / "tests/data/corpus/feeds/pytorch-blog-2026-09-02-397d8ac.xml"
RESULTS = ROOT / "bench" / "results" / "tokens.json"
FIXED_BAR = 1500
CLEAN_BAR = 0.40


def main(feed_path: Path = FEED) -> int:
    doc = feedparser.parse(feed_path.read_bytes())
    explain = prompts.load_template("explain")
    fixed = explain.render(
        {k: "" for k in explain.variables}
    ).system  # the system block has no variables: the same for every item
    fixed_tokens = prompts.estimate_tokens(fixed)
    item_xml = re.findall(r"<item>.*?</item>", feed_path.read_text(encoding="utf-8"), re.S)
    rows = []
    for index, entry in enumerate(doc.entries):
        raw = entry.content[0].value if entry.get("content") else entry.get("summary", "")
        cleaned = clean_html(raw)
        plain = re.sub(r"\s+", " ", BeautifulSoup(raw, "lxml").get_text(" ")).strip()
        user = explain.render(
            {
                "title": entry.get("title", ""),
                "author": entry.get("author"),
                "published": entry.get("published"),
                "url": entry.get("link"),
                "audience": DEFAULT_AUDIENCE,
                "language": "English",
                "text": cleaned,
            }
        ).user
        rows.append(
            {
                "title": entry.get("title", ""),
                "raw_chars": len(raw),
                "item_xml_chars": len(item_xml[index]) if index < len(item_xml) else None,
                "plain_text_chars": len(plain),
                "cleaned_chars": len(cleaned),
                "cleaned_ratio": round(len(cleaned) / len(raw), 3) if raw else 0.0,
                "prompt_fixed_tokens": fixed_tokens,
                "prompt_post_tokens": prompts.estimate_tokens(user),
            }
        )
    raw_total = sum(r["raw_chars"] for r in rows)
    cleaned_total = sum(r["cleaned_chars"] for r in rows)
    overall = {
        "items": len(rows),
        "raw_chars": raw_total,
        "cleaned_chars": cleaned_total,
        "cleaned_ratio": round(cleaned_total / raw_total, 3) if raw_total else 0.0,
        "plain_text_ratio": round(sum(r["plain_text_chars"] for r in rows) / raw_total, 3)
        if raw_total
        else 0.0,
        "cleaned_ratio_of_item_xml": round(
            cleaned_total / sum(r["item_xml_chars"] or 0 for r in rows), 3
        ),
        "prompt_fixed_tokens": fixed_tokens,
        "prompt_post_tokens": sum(r["prompt_post_tokens"] for r in rows),
        "fixed_share_of_prompt": round(
            fixed_tokens
            * len(rows)
            / (fixed_tokens * len(rows) + sum(r["prompt_post_tokens"] for r in rows)),
            3,
        ),
    }
    bars = {
        "fixed_tokens_le_1500": fixed_tokens <= FIXED_BAR,
        "cleaned_le_40pct_of_raw": overall["cleaned_ratio"] <= CLEAN_BAR,
    }
    print(f"{'item':50} {'raw':>8} {'clean':>8} {'ratio':>6} {'fixed':>6} {'post':>6}")
    for r in rows:
        print(
            f"{r['title'][:50]:50} {r['raw_chars']:>8} {r['cleaned_chars']:>8} "
            f"{r['cleaned_ratio']:>6.1%} {r['prompt_fixed_tokens']:>6} {r['prompt_post_tokens']:>6}"
        )
    print(
        f"{'all ' + str(len(rows)) + ' items':50} {raw_total:>8} {cleaned_total:>8} "
        f"{overall['cleaned_ratio']:>6.1%} {fixed_tokens:>6} {overall['prompt_post_tokens']:>6}"
    )
    print(
        f"plain text (get_text) is {overall['plain_text_ratio']:.1%} of raw HTML; cleaned is "
        f"{overall['cleaned_ratio_of_item_xml']:.1%} of the <item> XML"
    )
    for name, ok in bars.items():
        print(f"bar {name}: {'PASS' if ok else 'FAIL'}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {"feed": feed_path.name, "items": rows, "overall": overall, "bars": bars}, indent=2
        ),
        encoding="utf-8",
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0  # a figure, not a test: the bars are printed and written, not enforced


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else FEED))
