"""Numbers in text: find every one, with its position, kind and normalised value.

A number is any token with a digit, plus the number words one to twenty (and a few
more; the German too: "zwei" to "zwanzig", "Dutzend", "zweimal so schnell"). Kinds:

- ``quantity``: ``1.10x``, ``1.10 times``, ``96%``, ``96 percent``, ``1,362,998``,
  ``243.86 GiB``, ``34.1 ms``, ``$27M``; value, unit, precision and hedge; ``runs 3
  times``, ``3 Mal aufgerufen`` with no comparison count events (no unit). German forms
  too (:mod:`.german`): ``2,5-mal``, ``2,5 %``, ``12,5 ms``, ``1.362.998``, ``1.362,5``,
  ``12,5 Sekunden``, ``1,2 Mio.``, ``3 Milliarden``, ``12,5 ms pro Schritt``. A value a
  keyword of code is given (:mod:`.keywords`): the 2 of ``min=2``, ``max_tokens=4096``.
- ``range``: ``1.17–3.66x``, ``8 to 256``, ``from 8 to 256``, ``between 8 and 256``;
  a change: ``fell from 40 to 30 ms``, ``grew from 1,500 tokens to 6,000 tokens``.
- ``version``: ``0.14.2b``, ``v0.3.x``, ``2.14`` after a product name.
- ``identifier``: ``MI355X``, ``gfx950``, ``Llama-3.1-8B-Instruct``, ``TP=1``, ``A8W8``;
  a model's plural and a decade, no seconds: ``RTX 4090s`` (and ``3090s`` after it, or
  opening the next clause as it opened its own, keyed as ``RTX 3090``), ``the 1990s``,
  ``the '90s``. ``100s of GPUs`` is no number, as ``hundreds of`` is none.
- ``word``: ``two``, ``twenty-four``, ``dozen``, ``half``, ``twice``, ``double``, ``six
  times`` (before a comparison), ``two-thirds``.

The text is read through a one-to-one character map (dash styles, Unicode minus,
U+2011, U+2236, no-break spaces) and with link targets, URLs and emphasis markers
blanked out, so positions always point into the text as given.

Modules, in the order the extractor applies them: :mod:`.normalise` (the text as read,
folded keys; German decimal commas by :mod:`.german`), :mod:`.tokens` (tokens holding a
digit and their kinds), :mod:`.units` (units on the digits, after a space, rates; German
thousands by :mod:`.german`; digits and an "s" that name a model or a decade by
:mod:`.plural`; "times" that counts events by :mod:`.events`), :mod:`.context` (hedges,
signs, ranges, lists, versions after a product; the side a keyword states, ``max=128``, by
:mod:`.keywords`), :mod:`.words` (number words), :mod:`.extract` (the passes in order).
"""

from service.numbers.extract import extract_numbers
from service.numbers.normalise import fold, identifier_key, prepare
from service.numbers.number import Hedge, Kind, Number

__all__ = [
    "Hedge",
    "Kind",
    "Number",
    "extract_numbers",
    "fold",
    "identifier_key",
    "prepare",
]
