"""Webhook signatures: every accepted scheme verifies, and every way to get one wrong is
refused with a reason."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from service import signatures
from service.errors import AuthError, SignatureError

BODY = b'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>'
SECRET = "s3cret-shared-with-the-monitor"


def test_x_hub_signature_256_verifies_and_names_its_scheme() -> None:
    # Computed independently of the module, as a sender would.
    digest = hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    headers = {"x-hub-signature-256": f"sha256={digest}"}
    assert signatures.verify(SECRET, BODY, headers) == "x-hub-signature-256"


@pytest.mark.parametrize("algo", ["sha1", "sha256", "sha384", "sha512"])
def test_websub_x_hub_signature_takes_every_algorithm(algo: str) -> None:
    digest = hmac.new(SECRET.encode(), BODY, getattr(hashlib, algo)).hexdigest()
    assert signatures.verify(SECRET, BODY, {"x-hub-signature": f"{algo}={digest}"})


def test_uppercase_hex_is_the_same_digest() -> None:
    value = signatures.sign_hub(SECRET, BODY).upper().replace("SHA256=", "sha256=")
    assert signatures.verify(SECRET, BODY, {"x-hub-signature-256": value})


@pytest.mark.parametrize(
    "headers",
    [
        {"x-hub-signature-256": signatures.sign_hub("another-secret", BODY)},
        {"x-hub-signature-256": "sha256=zz"},
        {"x-hub-signature-256": "sha256="},
        {"x-hub-signature-256": signatures.sign_hub(SECRET, BODY, "sha1")},
        {"x-hub-signature": "md5=" + hashlib.md5(BODY).hexdigest()},
        {"x-hub-signature": "no-equals-sign"},
        {"x-miniflux-signature": "00" * 32},
    ],
)
def test_wrong_or_malformed_signatures_are_refused(headers: dict[str, str]) -> None:
    with pytest.raises(SignatureError):
        signatures.verify(SECRET, BODY, headers)


def test_a_changed_body_breaks_the_signature() -> None:
    headers = {"x-hub-signature-256": signatures.sign_hub(SECRET, BODY)}
    with pytest.raises(SignatureError, match="does not match"):
        signatures.verify(SECRET, BODY + b" ", headers)


def test_unsigned_delivery_is_refused_with_the_schemes_to_use() -> None:
    with pytest.raises(SignatureError) as caught:
        signatures.verify(SECRET, BODY, {})
    for scheme in ("X-Hub-Signature-256", "X-Hub-Signature,", "X-Miniflux-Signature", "Standard"):
        assert scheme in caught.value.detail


def test_standard_webhooks_with_a_whsec_secret() -> None:
    key = b"0123456789abcdef0123456789abcdef"
    secret = "whsec_" + base64.b64encode(key).decode()
    now = int(time.time())
    # Built by hand from the Standard Webhooks spec: HMAC-SHA256 of "id.timestamp.body".
    sig = hmac.new(key, f"msg_1.{now}.".encode() + BODY, hashlib.sha256).digest()
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(now),
        "webhook-signature": "v1," + base64.b64encode(sig).decode(),
    }
    assert signatures.verify(secret, BODY, headers) == "webhook-signature"


def test_standard_webhooks_several_signatures_during_key_rotation() -> None:
    now = int(time.time())
    good = signatures.sign_standard(SECRET, "msg_2", now, BODY)
    old = signatures.sign_standard("the-old-secret", "msg_2", now, BODY)
    headers = {
        "webhook-id": "msg_2",
        "webhook-timestamp": str(now),
        "webhook-signature": f"{old} v1a,c29tZXRoaW5n {good}",
    }
    assert signatures.verify(SECRET, BODY, headers) == "webhook-signature"


@pytest.mark.parametrize(
    ("skew", "said"), [(-301, "301 s old"), (301, "301 s in the future"), (3600, "3600 s in the")]
)
def test_standard_webhooks_outside_five_minutes_is_refused(skew: int, said: str) -> None:
    now = int(time.time())
    headers = signatures.standard_headers(SECRET, "msg_3", BODY, timestamp=now + skew)
    with pytest.raises(SignatureError, match="tolerance") as caught:
        signatures.verify(SECRET, BODY, headers, now=now)
    assert said in caught.value.detail


@pytest.mark.parametrize("skew", [-299, 0, 299])
def test_standard_webhooks_inside_five_minutes_is_taken(skew: int) -> None:
    now = time.time()
    headers = signatures.standard_headers(SECRET, "msg_4", BODY, timestamp=int(now) + skew)
    assert signatures.verify(SECRET, BODY, headers, now=now)


def test_standard_webhooks_id_is_part_of_what_is_signed() -> None:
    headers = signatures.standard_headers(SECRET, "msg_5", BODY)
    headers["webhook-id"] = "msg_6"  # a replay under a fresh id must not verify
    with pytest.raises(SignatureError):
        signatures.verify(SECRET, BODY, headers)


def test_standard_webhooks_without_timestamp_is_refused() -> None:
    headers = signatures.standard_headers(SECRET, "msg_7", BODY)
    del headers["webhook-timestamp"]
    with pytest.raises(SignatureError, match="webhook-timestamp"):
        signatures.verify(SECRET, BODY, headers)


def test_miniflux_signature() -> None:
    digest = hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    assert signatures.verify(SECRET, BODY, {"x-miniflux-signature": digest})


def test_one_valid_scheme_is_enough() -> None:
    headers = {
        "x-hub-signature": "sha1=" + "0" * 40,
        "x-hub-signature-256": signatures.sign_hub(SECRET, BODY),
    }
    assert signatures.verify(SECRET, BODY, headers) == "x-hub-signature-256"


def test_authorize_secret_beats_token() -> None:
    # A feed with a secret needs the signature even from a caller holding the API token.
    with pytest.raises(SignatureError):
        signatures.authorize(SECRET, BODY, {}, token_ok=True)
    signed = {"x-hub-signature-256": signatures.sign_hub(SECRET, BODY)}
    assert signatures.authorize(SECRET, BODY, signed, token_ok=False) == "x-hub-signature-256"


def test_authorize_without_secret_needs_the_token() -> None:
    assert signatures.authorize(None, BODY, {}, token_ok=True) is None
    with pytest.raises(AuthError, match="bearer token"):
        signatures.authorize(None, BODY, {}, token_ok=False)


def test_is_signed() -> None:
    assert not signatures.is_signed({"content-type": "application/json"})
    assert signatures.is_signed({"webhook-signature": "v1,abc"})
    assert signatures.is_signed({"x-hub-signature": "sha1=00"})


def test_a_stamp_of_forty_digits_is_refused_with_its_own_digits() -> None:
    now = 1_700_000_000
    stamp = 10**39
    headers = signatures.standard_headers(SECRET, "msg_5", BODY, timestamp=stamp)
    with pytest.raises(SignatureError) as caught:
        signatures.verify(SECRET, BODY, headers, now=now)
    assert f"{stamp - now} s in the future" in caught.value.detail
