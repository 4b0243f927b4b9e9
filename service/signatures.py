"""Webhook signatures (pure): which schemes a request carries and whether one verifies.

Accepted schemes, all HMACs over the raw body with the feed's secret:

- ``X-Hub-Signature-256: sha256=<hex>`` (GitHub style, and WebSub with SHA-256);
- ``X-Hub-Signature: sha1|sha256|sha384|sha512=<hex>`` (WebSub content distribution);
- Standard Webhooks: ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature:
  v1,<base64>`` (several, space-separated, during a key rotation) over
  ``"{id}.{timestamp}.{body}"``; a ``whsec_`` secret is base64 after the prefix;
- ``X-Miniflux-Signature: <hex>`` (Miniflux, HMAC-SHA256).

Comparisons are constant-time over the digest bytes, never over text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections import Counter
from collections.abc import Iterable, Mapping

from service.errors import AmbiguousSignature, AuthError, SignatureError

TOLERANCE_SECONDS = 300
HUB_ALGORITHMS = {
    "sha1": hashlib.sha1,
    "sha256": hashlib.sha256,
    "sha384": hashlib.sha384,
    "sha512": hashlib.sha512,
}
# Header names (lower case) that carry a signature, in the order they are tried.
SIGNATURE_HEADERS = (
    "webhook-signature",
    "x-hub-signature-256",
    "x-hub-signature",
    "x-miniflux-signature",
)

# The headers a signature is read from, and their names as written. Each is one field
# (RFC 9110 5.3: none is a comma-separated list): of one given twice the last was read,
# where the sender, or a proxy adding its own, may have meant either; Standard Webhooks'
# id and timestamp are signed, and the id names the delivery. Several Standard Webhooks
# signatures (a key rotation) go space-separated in one webhook-signature.
SIGNED_FIELDS = {
    "webhook-signature": "webhook-signature",
    "webhook-id": "webhook-id",
    "webhook-timestamp": "webhook-timestamp",
    "x-hub-signature-256": "X-Hub-Signature-256",
    "x-hub-signature": "X-Hub-Signature",
    "x-miniflux-signature": "X-Miniflux-Signature",
}


def refuse_repeated(names: Iterable[str]) -> None:
    """Refuse (400) a request whose header ``names`` (lower case, one a field line) hold
    one of :data:`SIGNED_FIELDS` more than once."""
    counts = Counter(n for n in names if n in SIGNED_FIELDS)
    if not counts["webhook-signature"]:
        # Unsigned, webhook-id is the delivery's id alone (ingest.refuse_repeated_ids).
        counts.pop("webhook-id", None)
    twice = {h: n for h, n in counts.items() if n > 1}
    if not twice:
        return
    detail = ", ".join(f"{n} {SIGNED_FIELDS[h]}" for h, n in twice.items())
    hint = ", its signatures space-separated" if "webhook-signature" in twice else ""
    raise AmbiguousSignature(f"the request has {detail} headers: send one of each{hint}")


def is_signed(headers: Mapping[str, str]) -> bool:
    """Whether the request carries any signature header (lower-cased names)."""
    return any(headers.get(h) for h in SIGNATURE_HEADERS)


def standard_key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret: ``whsec_<base64>`` decoded, else the
    secret's own bytes (monitors that let users type a secret use it as is)."""
    if secret.startswith("whsec_"):
        try:
            return base64.b64decode(secret[len("whsec_") :], validate=True)
        except (binascii.Error, ValueError):
            pass
    return secret.encode("utf-8")


def _hmac(key: bytes, data: bytes, algo: str = "sha256") -> bytes:
    return hmac.new(key, data, HUB_ALGORITHMS[algo]).digest()


def _hex_matches(expected: bytes, given: str) -> bool:
    try:
        provided = bytes.fromhex(given.strip())
    except ValueError:
        return False
    return hmac.compare_digest(expected, provided)


def _check_hub(secret: str, body: bytes, value: str, *, header: str) -> None:
    algo, sep, digest = value.strip().partition("=")
    algo = algo.strip().lower()
    if not sep or algo not in HUB_ALGORITHMS:
        raise SignatureError(f"{header} must be <sha1|sha256|sha384|sha512>=<hex>")
    if header == "X-Hub-Signature-256" and algo != "sha256":
        raise SignatureError("X-Hub-Signature-256 must be sha256=<hex>")
    if not _hex_matches(_hmac(secret.encode("utf-8"), body, algo), digest):
        raise SignatureError(f"{header} does not match the body")


def _check_standard(
    secret: str, body: bytes, headers: Mapping[str, str], now: float, tolerance: int
) -> None:
    msg_id = headers.get("webhook-id", "")
    stamp = headers.get("webhook-timestamp", "").strip()
    if not msg_id or not stamp:
        raise SignatureError("webhook-signature needs webhook-id and webhook-timestamp")
    try:
        ts = int(stamp)
    except ValueError as exc:
        raise SignatureError("webhook-timestamp must be integer seconds") from exc
    if abs(now - ts) > tolerance:
        # A stale timestamp is how a captured request replayed later is recognised.
        # In whole seconds: float arithmetic on a 40-digit stamp printed digits it lacks.
        whole = int(now)
        when = f"{whole - ts} s old" if now > ts else f"{ts - whole} s in the future"
        raise SignatureError(f"webhook-timestamp is {when} (tolerance {tolerance} s)")
    expected = _hmac(standard_key(secret), f"{msg_id}.{stamp}.".encode() + body)
    for part in headers.get("webhook-signature", "").split():
        version, _, sig = part.partition(",")
        if version != "v1":
            continue  # v1a (asymmetric) and future versions are not ours to check
        try:
            provided = base64.b64decode(sig, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(expected, provided):
            return
    raise SignatureError("webhook-signature does not match (no valid v1 signature)")


def verify(
    secret: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> str:
    """Check the signatures of a request against ``secret``; return the scheme that
    verified (a header name). ``headers`` has lower-case names.

    Raises :class:`SignatureError` when the request is unsigned or no signature it
    carries verifies (the first scheme's reason is reported).
    """
    now = time.time() if now is None else now
    failures: list[str] = []
    for header in SIGNATURE_HEADERS:
        value = headers.get(header)
        if not value:
            continue
        try:
            if header == "webhook-signature":
                _check_standard(secret, body, headers, now, tolerance)
            elif header == "x-hub-signature-256":
                _check_hub(secret, body, value, header="X-Hub-Signature-256")
            elif header == "x-hub-signature":
                _check_hub(secret, body, value, header="X-Hub-Signature")
            elif not _hex_matches(_hmac(secret.encode("utf-8"), body), value):
                raise SignatureError("X-Miniflux-Signature does not match the body")
        except SignatureError as exc:
            failures.append(exc.detail)
            continue
        return header
    if not failures:
        raise SignatureError(
            "the feed has a secret and the delivery is unsigned: send X-Hub-Signature-256, "
            "X-Hub-Signature, X-Miniflux-Signature or Standard Webhooks headers"
        )
    raise SignatureError(failures[0])


def authorize(
    secret: str | None,
    body: bytes,
    headers: Mapping[str, str],
    *,
    token_ok: bool,
    now: float | None = None,
) -> str | None:
    """Whether a delivery for a feed with ``secret`` may be stored; returns the signature
    scheme that verified, or None when no signature was needed.

    A feed with a secret takes only deliveries signed with it (a bearer token does not
    replace the signature). Without a secret, the API token decides. A valid signature
    stands in for the API token, because monitors often cannot set ``Authorization``.
    """
    if secret:
        return verify(secret, body, headers, now=now)
    if not token_ok:
        raise AuthError(
            "missing or wrong bearer token (Authorization: Bearer <token>), and the feed has "
            "no secret to sign with"
        )
    return None


# --- signing (senders: tests, benchmarks, documentation examples) -----------


def sign_hub(secret: str, body: bytes, algo: str = "sha256") -> str:
    """The value of ``X-Hub-Signature(-256)`` for ``body``: ``<algo>=<hex>``."""
    return f"{algo}={_hmac(secret.encode('utf-8'), body, algo).hex()}"


def sign_standard(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The value of ``webhook-signature`` for ``body``: ``v1,<base64>``."""
    digest = _hmac(standard_key(secret), f"{msg_id}.{timestamp}.".encode() + body)
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_headers(
    secret: str, msg_id: str, body: bytes, *, timestamp: int | None = None
) -> dict[str, str]:
    """The three Standard Webhooks headers of a delivery."""
    ts = int(time.time()) if timestamp is None else timestamp
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(ts),
        "webhook-signature": sign_standard(secret, msg_id, ts, body),
    }
