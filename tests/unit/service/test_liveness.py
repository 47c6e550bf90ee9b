import datetime

from novalite.objects.service import Service
from novalite.service import liveness

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _service(**kw):
    return Service(id=1, uuid="u", host="h", binary="novalite-compute", **kw)


def test_up_within_service_down_time(conf):
    seen = NOW - datetime.timedelta(seconds=59)
    assert liveness.service_is_up(_service(last_seen_up=seen), now=NOW)


def test_down_after_service_down_time(conf):
    seen = NOW - datetime.timedelta(seconds=61)
    assert not liveness.service_is_up(_service(last_seen_up=seen), now=NOW)
    conf.set_override("service_down_time", 120)
    assert liveness.service_is_up(_service(last_seen_up=seen), now=NOW)


def test_forced_down_and_never_seen_are_down(conf):
    assert not liveness.service_is_up(_service(last_seen_up=NOW, forced_down=True), now=NOW)
    assert not liveness.service_is_up(_service(), now=NOW)
