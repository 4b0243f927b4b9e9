"""Whether a candidate is a sentence at all: scraped list items are often a noun phrase
("The new “flat” models which live under vllm/models/."), which the explainer would say
as if it were a statement. No tagger: a finite verb is looked for with a few rules that
err towards "a sentence", so that only plain noun phrases are left out."""

from __future__ import annotations

import re

from service.engines.extractive.words import wordset

# Auxiliaries and modals: finite wherever they stand.
_AUX = wordset(
    """is are was were am has have had do does did will would can could may might must shall
    should isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
    wouldn't can't cannot couldn't shouldn't mustn't it's that's there's here's what's
    who's he's she's"""
)
# Common verbs whose finite forms look like anything else ("GPUs share memory", "they
# run"): a verb when no determiner stands right before ("the run", "a use").
_BASE_VERBS = wordset(
    """run use make show need support provide offer give take keep let help work allow
    require include contain add reduce improve increase enable get see say find build call
    live reside import export share lets set put cut hit reach beat win lose fit go come
    become remain stay seem sit hold bring move ship land scale handle compute replace
    expose wrap load save store serve train fuse lower raise drop stop start begin end
    fall grow rise vary differ depend matter apply happen occur change follow lead mean pass
    print read write return produce create generate define describe explain introduce
    remove fix update launch release announce measure test ask try want think know expect
    plan
    ran made gave took kept got saw said found built came went became held brought fell
    grew rose led meant wrote"""
)
# Words after which the next word names a thing, not an action ("the runs", "its work").
_DETERMINERS = wordset(
    """the a an this that these those its their our your his her each every some any no all
    both another either neither such many several few more most per"""
)
# After these, a verb-like word is a noun or an infinitive, not a finite verb.
_PREPOSITIONS = wordset("of in on at for with by from to into onto via per across about")
_RELATIVE = wordset("which who whom whose where")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\w.,]*")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def _verbish(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` may be a finite verb: an auxiliary, a contraction ("they're"),
    or a verb-like word ("runs", "added", "share") that no determiner, preposition or
    number precedes."""
    w = words[i]
    if w in _AUX or re.search(r"'(re|ve|ll|d|m)$|n't$", w):
        return True
    if i == 0:
        return w in _BASE_VERBS  # an imperative, or a subject the post left out
    prev = words[i - 1]
    if prev in _DETERMINERS or prev in _PREPOSITIONS or prev[:1].isdigit():
        return False  # "the run", "on pass@1", "to run": a noun or an infinitive
    if w in _BASE_VERBS:
        return True
    return len(w) > 3 and (
        w.endswith("ed") or (w.endswith("s") and not w.endswith(("ss", "us", "is", "'s")))
    )


def has_no_finite_verb(text: str) -> bool:
    """No word of ``text`` may be a finite verb: a noun phrase ("Python 3.14 support"). A
    capitalised word past the first is a name, not a verb ("Brian Stevens, SVP & AI CTO,
    Red Hat": "Stevens" is no "-s" verb, nor "Frameworks" of "AI & HPC Frameworks")."""
    written = _WORD.findall(text)
    words = [w.lower().replace("’", "'") for w in written]
    return bool(words) and not any(
        _verbish(words, i) and not (i > 0 and written[i][:1].isupper()) for i in range(len(words))
    )


def _surely_verb(words: list[str], i: int) -> bool:
    """An auxiliary, a contraction or a common verb no determiner precedes: a verb, not one
    of the plural nouns that "-s" finds as well ("which live under vllm/models")."""
    w = words[i]
    if w in _AUX or re.search(r"'(re|ve|ll|d|m)$|n't$", w):
        return True
    return w in _BASE_VERBS and (i == 0 or words[i - 1] not in _DETERMINERS)


def is_noun_phrase(text: str) -> bool:
    """A noun phrase and a relative clause that ends the text ("The new “flat” models which
    live under vllm/models/", "The transformers backend, which imports models from
    transformers"): the verb is the clause's, none is the sentence's own. The words before
    the relative pronoun but its antecedent hold no verb, and after the clause's first
    word nothing is surely a verb (the main verb: "The models which live there are new",
    "Those who use it see gains") nor does a comma close the clause."""
    words = _words(text)
    at = next((i for i, w in enumerate(words) if w in _RELATIVE), None)
    if at is None or not 1 <= at <= 6:
        return False
    if any(_verbish(words, i) for i in range(at - 1)):
        return False
    tail = words[at + 1 :]
    if any(_surely_verb(tail, i) for i in range(1, len(tail))):
        return False
    return "," not in text[text.lower().find(words[at]) :]
