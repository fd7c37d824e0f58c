"""Mini App init data checked exactly as Telegram specifies; Discord's signed links."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import pytest

from bot.features.dashboard.auth import (
    INIT_DATA_MAX_AGE,
    LINK_SECONDS,
    SESSION_SECONDS,
    AuthError,
    Identity,
    Signer,
    Verified,
    data_check_string,
    derive_secret,
    secret_key,
    sign_init_data,
    verify_init_data,
)
from tests.clock import FakeClock
from tests.dashboard_support import init_data

TOKEN = "123456:TEST-token_for-vectors"
USER = ('{"id":279058397,"first_name":"Vladislav","last_name":"Kibenko","username":"vdkfrost",'
        '"language_code":"ru","is_premium":true,"allows_write_to_pm":true}')
FIELDS = {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "user": USER, "auth_date": "1733011200"}
# Computed outside Python with `openssl dgst -sha256 -mac HMAC` (key "WebAppData" over the
# token, then the data-check-string under that key), so the test does not check the code
# against itself.
VECTOR = "9cd33af1cd3833956670fe499bc12d1448846b5ebb48088fe5aae0cf1a3e9b4c"


def test_hash_matches_an_independent_computation() -> None:
    assert data_check_string({**FIELDS, "hash": "x"}) == (
        f"auth_date=1733011200\nquery_id=AAHdF6IQAAAAAN0XohDhrOrc\nuser={USER}")
    assert len(secret_key(TOKEN)) == 32
    assert sign_init_data(FIELDS, TOKEN) == VECTOR
    who = verify_init_data(urlencode({**FIELDS, "hash": VECTOR}), TOKEN, now=1733011200 + 60)
    assert who == Identity("telegram", "279058397", "Vladislav Kibenko", "ru")


def test_fields_are_url_decoded_and_sorted_whatever_order_they_came_in() -> None:
    shuffled = urlencode([("user", USER), ("hash", VECTOR), ("auth_date", "1733011200"),
                          ("query_id", "AAHdF6IQAAAAAN0XohDhrOrc")])
    assert verify_init_data(shuffled, TOKEN, now=1733011200).user_id == "279058397"


@pytest.mark.parametrize("tamper", [
    lambda f: {**f, "hash": VECTOR.upper().replace("C", "D")},  # another hash
    lambda f: {**f, "auth_date": "1733011201"},  # a signed field changed
    lambda f: {**f, "user": USER.replace("279058397", "1")},  # someone else
    lambda f: {**f, "extra": "1"},  # a field added after signing
    lambda f: {k: v for k, v in f.items() if k != "query_id"},  # a field dropped
    lambda f: {k: v for k, v in f.items() if k != "hash"},  # no hash at all
])
def test_anything_changed_after_signing_is_refused(tamper) -> None:
    fields = tamper({**FIELDS, "hash": VECTOR})
    with pytest.raises(AuthError):
        verify_init_data(urlencode(fields), TOKEN, now=1733011200)


def test_another_bots_token_is_refused() -> None:
    with pytest.raises(AuthError, match="bad hash"):
        verify_init_data(urlencode({**FIELDS, "hash": VECTOR}), TOKEN + "x", now=1733011200)


def test_a_field_given_twice_is_refused_even_when_one_copy_is_signed() -> None:
    data = urlencode({**FIELDS, "hash": VECTOR}) + "&user=" + "%7B%22id%22%3A1%7D"
    with pytest.raises(AuthError, match="twice"):
        verify_init_data(data, TOKEN, now=1733011200)


def test_auth_date_may_be_a_day_old_and_no_older() -> None:
    clock = FakeClock(1_800_000_000)
    data = init_data(TOKEN, 7, "Ada", auth_date=clock())
    clock.advance(INIT_DATA_MAX_AGE)
    assert verify_init_data(data, TOKEN, clock()).user_id == "7"
    clock.advance(1)
    with pytest.raises(AuthError, match="expired"):
        verify_init_data(data, TOKEN, clock())
    future = init_data(TOKEN, 7, "Ada", auth_date=clock() + 3600)
    with pytest.raises(AuthError, match="expired"):
        verify_init_data(future, TOKEN, clock())


def test_empty_huge_or_garbled_init_data_is_refused_without_a_traceback() -> None:
    for data in ("", "x" * 10_000, "%%%", "hash", "user=1&hash=" + VECTOR):
        with pytest.raises(AuthError):
            verify_init_data(data, TOKEN, now=1733011200)
    good = init_data(TOKEN, 7, "Ada", auth_date=1733011200)
    no_user = urlencode([(k, v) for k, v in parse_qsl(good) if k != "user"])
    with pytest.raises(AuthError):
        verify_init_data(no_user, TOKEN, now=1733011200)
    with pytest.raises(AuthError, match="not configured"):
        verify_init_data(good, "", now=1733011200)


def test_signed_link_is_bound_to_its_user_and_lasts_ten_minutes() -> None:
    clock = FakeClock(1_800_000_000)
    signer = Signer(derive_secret("", "discord-token"), clock)
    who = Identity("discord", "42", "Grace", None, "9001", True)
    link = signer.link(who)
    assert signer.open_link(link) == who
    with pytest.raises(AuthError):  # a link is not a session, nor the other way round
        signer.open_session(link)
    session = signer.session(who)
    with pytest.raises(AuthError):
        signer.open_link(session)
    mac = link.partition(".")[2]
    forged = Signer(derive_secret("", "discord-token"), clock)._sign(  # another user's claims
        "link", Identity("discord", "43", "Eve"), LINK_SECONDS).partition(".")[0]
    with pytest.raises(AuthError, match="bad signature"):
        signer.open_link(f"{forged}.{mac}")
    with pytest.raises(AuthError):
        Signer(derive_secret("", "another-token"), clock).open_link(link)
    clock.advance(LINK_SECONDS)
    assert signer.open_link(link) == who
    clock.advance(1)
    with pytest.raises(AuthError, match="link expired"):
        signer.open_link(link)
    assert signer.open_session(session) == who  # the session lasts an hour
    clock.advance(SESSION_SECONDS)
    with pytest.raises(AuthError, match="session expired"):
        signer.open_session(session)


def test_no_secret_means_no_links() -> None:
    signer = Signer(derive_secret("", ""), FakeClock())
    assert not signer.enabled
    with pytest.raises(AuthError):
        signer.link(Identity("discord", "1"))
    with pytest.raises(AuthError):
        signer.open_link("a.b")


def test_configured_secret_wins_over_the_discord_token() -> None:
    assert derive_secret("s3cret", "tok") == derive_secret("s3cret", "other")
    assert derive_secret("", "tok") != derive_secret("", "other")
    assert derive_secret("s3cret", "tok") != b"s3cret"


def test_a_verified_credential_is_kept_until_it_expires_and_no_longer() -> None:
    clock = FakeClock(1733011200)
    who = verify_init_data(urlencode({**FIELDS, "hash": VECTOR}), TOKEN, now=clock())
    assert who.expires_at == 1733011200 + INIT_DATA_MAX_AGE  # as long as auth_date counts
    verified = Verified(clock, max_keys=2)
    verified.keep("tma a", who)
    assert verified.get("tma a") == who
    assert verified.get("tma b") is None  # never verified: the caller verifies it
    clock.advance(INIT_DATA_MAX_AGE + 1)
    assert verified.get("tma a") is None  # expired: verified again, and refused
    verified = Verified(FakeClock(1733011200), max_keys=2)
    for credential in ("tma a", "tma b", "tma c"):  # at most max_keys, the oldest go first
        verified.keep(credential, who)
    assert [verified.get(c) is not None for c in ("tma a", "tma b", "tma c")] == [
        False, True, True]
