"""Which zone each service is in, and which zones are available."""

from novalite import availability_zones as azs
from novalite.objects.service import Service


def _svc(host, binary="novalite-compute", topic="compute", disabled=False):
    return Service(id=1, uuid="u", host=host, binary=binary, topic=topic, disabled=disabled)


def test_computes_take_their_aggregates_zone_or_the_default(conf):
    zones = {"h1": {"az1"}, "h2": {"b", "a"}}
    assert azs.zone_of(_svc("h1"), zones) == "az1"
    assert azs.zone_of(_svc("h2"), zones) == "a,b"
    assert azs.zone_of(_svc("h3"), zones) == "nova"
    conf.set_override("default_availability_zone", "home")
    assert azs.zone_of(_svc("h3"), zones) == "home"


def test_other_services_are_internal(conf):
    conductor = _svc("h1", "novalite-conductor", "conductor")
    assert azs.zone_of(conductor, {"h1": {"az1"}}) == "internal"
    assert azs.zone_of(_svc("h1", "novalite-api", None), {}) == "internal"


def test_a_zone_is_available_while_one_of_its_services_is_enabled():
    zoned = [(_svc("h1", disabled=True), "az1"), (_svc("h2"), "az1"),
             (_svc("h3", disabled=True), "az2"), (_svc("h4"), "nova")]
    assert azs.split(zoned) == (["az1", "nova"], ["az2"])
