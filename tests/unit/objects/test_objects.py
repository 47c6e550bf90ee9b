import datetime

import pytest

from novalite.objects import base
from novalite.rpc import serializer
from tests import builders


def test_request_spec_round_trips_with_nested_objects():
    spec = builders.request_spec(scheduler_hints={"group": ["g1"]})
    again = serializer.deserialize(serializer.serialize(spec))
    assert again == spec
    assert again.flavor.memory_mb == 512 and again.image.name == "cirros"


def test_datetimes_round_trip():
    now = datetime.datetime(2026, 11, 22, 12, 0, 1)
    inst = builders.instance(launched_at=now)
    assert serializer.deserialize(serializer.serialize(inst)).launched_at == now


def test_fields_from_a_newer_peer_are_ignored_and_missing_ones_default():
    data = serializer.serialize(builders.flavor())
    data["nl.data"]["added_in_2_0"] = True
    del data["nl.data"]["description"]
    flavor = serializer.deserialize(data)
    assert flavor.name == "m1.tiny" and flavor.description is None


def test_unknown_object_names_are_refused():
    with pytest.raises(ValueError, match="Unknown object type"):
        serializer.deserialize({"nl.object": "Nope", "nl.version": "1.0", "nl.data": {}})


def test_orm_rows_and_other_objects_cannot_be_sent():
    with pytest.raises(TypeError, match="Cannot send"):
        serializer.serialize({"x": object()})


def test_registered_objects_are_dataclasses_with_versions():
    assert base.lookup("RequestSpec").VERSION == "1.2"
