import pytest

from novalite.api.compute import microversions
from novalite.api.faults import HTTPFault


def test_no_header_means_2_1():
    assert microversions.negotiate({}) == (2, 1)


@pytest.mark.parametrize(("headers", "version"), [
    ({"openstack-api-version": "compute 2.64"}, (2, 64)),
    ({"x-openstack-nova-api-version": "2.1"}, (2, 1)),
    ({"openstack-api-version": "compute latest"}, (2, 100)),
    ({"openstack-api-version": "placement 1.10, compute 2.47"}, (2, 47)),
])
def test_accepted_forms(headers, version):
    assert microversions.negotiate(headers) == version


def test_out_of_range_is_406_with_novas_message():
    with pytest.raises(HTTPFault) as err:
        microversions.negotiate({"x-openstack-nova-api-version": "2.200"})
    assert err.value.code == 406
    assert err.value.message == ("Version 2.200 is not supported by the API. Minimum is 2.1 "
                                 f"and maximum is {microversions.fmt(microversions.MAX_VERSION)}.")


def test_malformed_is_400():
    with pytest.raises(HTTPFault) as err:
        microversions.negotiate({"openstack-api-version": "compute two"})
    assert err.value.code == 400


def test_response_headers_echo_both_forms():
    headers = microversions.response_headers((2, 1))
    assert headers["OpenStack-API-Version"] == "compute 2.1"
    assert headers["X-OpenStack-Nova-API-Version"] == "2.1"
    assert "OpenStack-API-Version" in headers["Vary"]
