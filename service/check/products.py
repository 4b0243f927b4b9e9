"""A count of products: "8 H100s", "8 NVIDIA H100s", "8x A100 80GB" count GPUs, a
model's name standing for its kind. The explainer's plain hardware noun ("8 GPUs")
is backed by such a source count where the name has a digit or is a capitalised
plural ("16 Blackwells", "4 Xeons"; a title-case "8 Nodes" passes too, a known limit)
and has no noun of its own after it ("8 H100 nodes" counts nodes; a device noun is
its own, of the kind it says: "8 MI300X accelerators", "4 EPYC 9654 processors"; and
"8x H100 node" is a node of eight H100s), nor a system's line before it ("8 DGX
H100s": 64 GPUs). Its kind is the one its paragraph writes it with ("the Xeon CPUs":
"2 GPUs" for "2 Xeons" is none), else the one its family's name says ("8 CPUs" for
"8 H100s" and "8 GPUs" for "8 Llama3-8B", a language model, are none: _FAMILIES), else
any (a name of no family known: "16 Foos" for "16 Foo2s")."""

from __future__ import annotations

import re

from service.check.names import STOP_WORDS
from service.check.scope import AFTER_NOUN, HEAD_WORDS, noun_phrase
from service.check.unit import Unit
from service.numbers import Number

# The kinds a model's name stands for (no "node": a machine, not a chip's model).
PRODUCT_KINDS = frozenset({"gpu", "cpu", "tpu", "npu"})

# After a count, in the source's own case: up to two words of its maker or line
# ("NVIDIA", "AMD Instinct"), then the model's name with a digit ("H100s", "MI300X"),
# a capitalised plural ("Blackwells"), or digits after a word of its line ("RTX
# 4090s").
_PRODUCT = re.compile(
    r"[ \t]+(?:[A-Z][A-Za-z-]*[ \t]+){0,2}?"
    r"(?P<model>[A-Z][A-Za-z]*\d(?:[\w.-]*\w)?|[A-Z][a-z]+s|(?<=[A-Za-z][ \t])\d+[A-Za-z]*)"
    r"(?![\w-])"
)
# Nouns of a device a model's name may stand before: what the model is; and the kinds
# a device noun says (a processor is a CPU, an accelerator or a card no CPU: "8 GPUs"
# for "8 AMD EPYC 9654 processors" is none), where "chip" and "device" say none.
DEVICES = frozenset({"accelerator", "card", "chip", "device", "processor"})
_ACCELERATORS = frozenset({"gpu", "tpu", "npu"})
_DEVICE_KINDS = {
    "processor": frozenset({"cpu"}),
    "accelerator": _ACCELERATORS,
    "card": _ACCELERATORS,
}
# A system's line before a model's name: "8 DGX H100s" are eight systems of eight GPUs.
_SYSTEMS = re.compile(r"\b(?:DGX|HGX|MGX)\b")
_KIND_AFTER = r"s?[ \t-]+(gpu|cpu|tpu|npu)s?(?![a-z])"  # "Xeon CPUs", "H100-GPU"
# The kind a model's family name says, in the words before and of the model's name:
# NVIDIA's and AMD's data-centre and desktop GPUs, the server CPUs, Google's TPUs, and
# language models, which are no hardware ("8 Llama3-8B" are eight runs of a model). A
# superchip or an APU (GB200, GH200, MI300A) says no one kind, nor does a name not here.
_FAMILIES = (
    (
        "gpu",
        re.compile(
            r"\b(?:[ABHLV]\d{2,3}[A-Z]?|MI\d{3}X?|RTX|GTX|GeForce|Radeon|Quadro|Blackwells?"
            r"|Hoppers?|T4|L4|L40S?|K80)s?(?![\w-])"
        ),
    ),
    ("cpu", re.compile(r"\b(?:Xeon|EPYC|Ryzen|Threadripper|Graviton\d*|Altra)s?(?![\w-])")),
    ("tpu", re.compile(r"\b(?:Trillium|Ironwood)s?(?![\w-])")),
    (
        "model",
        re.compile(r"\b(?:Llama|Qwen|Mistral|Mixtral|Gemma|DeepSeek|GPT|Phi|Falcon|BERT|Whisper)"),
    ),
)


def product_kind(noun: str) -> bool:
    """Whether an explainer's noun ("gpus", "GPUs") is a kind a model's name stands for."""
    return noun.lower().removesuffix("s") in PRODUCT_KINDS


def counts_products(unit: Unit, number: Number, kind: str) -> bool:
    """Whether the source's count ``number`` counts a model's name (:data:`_PRODUCT`) of
    ``kind`` ("gpu"): no noun after the name but a device's (:data:`DEVICES`), and no
    other kind written after it in the paragraph (read only here: most counts name no
    model)."""
    m = _PRODUCT.match(unit.cased, number.end)  # (prepared: "8x H100" reads "8  H100")
    if m is None or _SYSTEMS.search(m.group(0)):
        return False
    after = noun_phrase(unit.text, m.end(), STOP_WORDS, HEAD_WORDS, AFTER_NOUN)
    # A device's noun is the model's; a singular noun after a count of more than one is
    # what the models make up ("8x H100 node": a node of eight H100s), a plain word: a
    # name after it is a system's ("4 GB200 NVL72" are four racks of 72 GPUs).
    one = after[0] if len(after) == 1 else ""
    compound = one.isalpha() and not one.endswith("s") and number.value != 1
    device = one.removesuffix("s")
    if after and not (compound or device in DEVICES):
        return False
    if kind.lower().removesuffix("s") not in _DEVICE_KINDS.get(device, PRODUCT_KINDS):
        return False
    family = next((f for f, name in _FAMILIES if name.search(m.group(0))), None)
    if family is not None and family != kind.lower().removesuffix("s"):
        return False
    model = re.escape(m.group("model").lower().removesuffix("s"))
    said = re.findall(rf"(?<![a-z0-9]){model}{_KIND_AFTER}", unit.text)
    return not said or kind.lower().removesuffix("s") in said


def counts_kind(unit: Unit, number: Number | None, noun: str) -> bool:
    """Whether the source's ``number`` (None: a value derived from several, no count)
    counts models of the kind ``noun`` names ("gpus", a name's key "gpu")."""
    return number is not None and product_kind(noun) and counts_products(unit, number, noun)
