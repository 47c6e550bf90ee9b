import pytest

from novalite.api.console.proxy import Refused, check_origin


def test_no_origin_is_a_non_browser_client():
    check_origin(None, "c:8774", None, secure=False)


def test_the_origin_must_be_this_host_or_an_allowed_one_on_the_same_scheme(conf):
    check_origin("http://c:8774", "c:8774", None, secure=False)
    check_origin("https://c", "c:8774", None, secure=True)
    with pytest.raises(Refused, match="does not match this host"):
        check_origin("http://evil.example", "c:8774", None, secure=False)
    with pytest.raises(Refused, match="protocol does not match"):
        check_origin("https://c", "c:8774", None, secure=False)
    check_origin("https://c", "c:8774", "http", secure=False)  # X-Forwarded-Proto wins
    with pytest.raises(Refused, match="not valid"):
        check_origin("null", "c:8774", None, secure=False)
    conf.set_override("allowed_origins", ["dash.example"], group="console")
    check_origin("http://dash.example", "c:8774", None, secure=False)
