"""A measured figure's binding for the match: the names it is said of, with what its
clause says beyond them (where the clause lies, what a count counts, the conditions and
list it stands in, where it ran, its names' kinds, its words and subject), read once per
figure of an explainer sentence (:mod:`.report`)."""

from __future__ import annotations

from collections.abc import Sequence

from service.check.beyond import about_words, direct_noun, far_names, kinds_of, paired_words
from service.check.bind import Binding
from service.check.index import SourceIndex
from service.check.names import HARDWARE_NOUNS, STOP_WORDS, Name, setting_noun
from service.check.qualified import subject_of
from service.check.scope import Clause, Sentence, compound_head, counted_phrase, figure_scope
from service.numbers import Number


def figure_binding(
    idx: SourceIndex,
    s: str,
    nums: Sequence[Number],
    names: Sequence[Name],
    n: Number,
    named: Binding,
    first: Binding,
    wording: Sentence,
    label: str | None,
) -> Binding:
    """The binding :func:`~service.check.match.match_quantity` and
    :func:`~service.check.match.match_range` read for the measured figure ``n`` of ``s``
    (its figures ``nums``, its names ``names``): the names, nouns and nearest name of
    ``named`` (its own, inherited or none), and what its clause says beyond names: the
    conditions of the measure ("with them enabled"), what a hyphenated count counts
    ("512-token prompt"); read when a source clause asks. ``first``: its binding as
    :func:`~service.check.bind.bind_numbers` made it (its clause's span, conditions,
    list and phrase); ``wording``: the sentence's opposite-pair words; ``label``: the
    label of the table row its count stands alone in a cell of, if any."""
    scope = first.span or figure_scope(s, nums, n)
    # What a count counts: its noun ("512-token prompt") or the last noun of the phrase
    # after it ("512 prompt tokens"), of the words said with it. A table row's count
    # alone in its cell counts what its label says: "| Output Tokens | 512 |" reads "512
    # output tokens".
    phrased = s if label is None else s[: n.end] + " " + label
    if n.noun:
        counted, head = "" if n.unit else n.noun, compound_head(s, n, STOP_WORDS)
    else:
        counted, head = counted_phrase(phrased, n, STOP_WORDS)
    direct = "" if counted or n.unit or n.noun else direct_noun(phrased, n)
    far = far_names(s, nums, names, n, named, scope[0]) if n.unit else ()
    return Binding(
        names=named.names,
        setting=tuple(
            x
            for x in named.names
            if x.key in HARDWARE_NOUNS and setting_noun(s, names, x, n.start, nums)
        ),
        nouns=named.nouns,
        inherited=named.inherited,
        nearest=named.nearest,
        clause=Clause(wording, scope),
        counted=counted,
        head=head,
        plain=not n.noun,
        conditions=first.conditions,
        listed=first.listed,
        direct=direct,
        kinds=kinds_of(idx, s, named.names, far) if n.unit else (),
        about=about_words(s, n, scope)
        if n.unit and not (named.names or first.listed)
        else paired_words(s, first.phrase)
        if n.unit and first.phrase
        else (),
        qualified=s[scope[0] : n.start] if n.unit and not (named.names or first.listed) else "",
        subject=subject_of(s[scope[0] : n.start]) if n.unit else "",
        far=far,
    )
