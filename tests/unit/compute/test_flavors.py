"""The rules every new flavor obeys (Nova's compute.flavors.create)."""

import uuid

import pytest

from novalite import exception
from novalite.compute import flavors

_RXTX = "'rxtx_factor' argument must be a float between 0 and 3.40282e+38"


def test_defaults_and_a_generated_id(db):
    flavor = flavors.create(" f1 ", "128", 1, "0")
    assert uuid.UUID(flavor.flavorid) and flavor.name == "f1"
    assert (flavor.memory_mb, flavor.root_gb, flavor.swap, flavor.ephemeral_gb) == \
        (128, 0, 0, 0)
    assert flavor.rxtx_factor == 1.0 and flavor.is_public is True
    assert flavors.create("f2", 1, 1, 0, flavorid=7, is_public="no").flavorid == "7"


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"memory": 0}, "ram must be >= 1"),
    ({"vcpus": "0"}, "vcpus must be >= 1"),
    ({"root_gb": -1}, "disk must be >= 0"),
    ({"swap": "x"}, "swap must be an integer"),
    ({"ephemeral_gb": 2 ** 31}, "ephemeral must be <= 2147483647"),
    ({"rxtx_factor": 0}, _RXTX),
    ({"rxtx_factor": "fast"}, _RXTX),
    ({"is_public": "maybe"}, "is_public must be a boolean"),
])
def test_invalid_values_are_refused_before_the_database(kwargs, reason):
    args = {"name": "f", "memory": 1, "vcpus": 1, "root_gb": 0, **kwargs}
    with pytest.raises(exception.InvalidInput) as caught:
        flavors.create(**args)
    assert caught.value.format_message() == f"Invalid input received: {reason}"
