import collections
import datetime
import enum
import json

import pytest

from novalite.objects import base, codec
from novalite.objects.request_spec import (
    Destination,
    InstanceGroup,
    RequestSpec,
    SchedulerRetries,
)
from tests import builders


def test_request_spec_round_trips_with_nested_objects():
    spec = builders.request_spec(scheduler_hints={"group": ["g1"]})
    again = codec.deserialize(codec.serialize(spec))
    assert again == spec
    assert again.flavor.memory_mb == 512 and again.image.name == "cirros"


def test_the_specs_typed_parts_round_trip():
    spec = builders.request_spec(
        instance_group=InstanceGroup(uuid="g", policy="anti-affinity",
                                     rules={"max_server_per_host": 2}, members=["a"],
                                     hosts=["h1"]),
        requested_destination=Destination(host="h1", node="n1"),
        retry=SchedulerRetries(num_attempts=2, hosts=[["h1", "n1"]]))
    data = codec.serialize(spec)
    assert data["nl.data"]["retry"]["nl.object"] == "SchedulerRetries"
    again = codec.deserialize(data)
    assert again == spec and again.instance_group.max_server_per_host == 2
    assert again.retry.tried() == {("h1", "n1")}


def test_a_spec_stored_with_dicts_reads_as_objects():
    """Request specs written before 1.3 (and older peers) carry these parts as dicts."""
    data = codec.serialize(builders.request_spec())
    data["nl.version"] = "1.2"
    data["nl.data"].update(
        instance_group={"uuid": "g", "policy": "affinity", "rules": {}, "hosts": ["h1"],
                        "members": ["a", "b"]},
        requested_destination={"host": "h1", "node": None},
        retry={"num_attempts": 3, "hosts": [["h1", "h1"]]})
    spec = codec.deserialize(data)
    assert isinstance(spec, RequestSpec)
    assert spec.instance_group == InstanceGroup(uuid="g", policy="affinity",
                                                hosts=["h1"], members=["a", "b"])
    assert spec.requested_destination == Destination(host="h1")
    assert spec.retry == SchedulerRetries(num_attempts=3, hosts=[["h1", "h1"]])
    assert codec.deserialize(codec.serialize(spec)) == spec


def test_datetimes_round_trip():
    now = datetime.datetime(2026, 11, 22, 12, 0, 1)
    inst = builders.instance(launched_at=now)
    assert codec.deserialize(codec.serialize(inst)).launched_at == now


def test_fields_from_a_newer_peer_are_ignored_and_missing_ones_default():
    data = codec.serialize(builders.flavor())
    data["nl.data"]["added_in_2_0"] = True
    del data["nl.data"]["description"]
    flavor = codec.deserialize(data)
    assert flavor.name == "m1.tiny" and flavor.description is None


def test_unknown_object_names_are_refused():
    with pytest.raises(ValueError, match="Unknown object type"):
        codec.deserialize({"nl.object": "Nope", "nl.version": "1.0", "nl.data": {}})


def test_orm_rows_and_other_objects_cannot_be_sent():
    with pytest.raises(TypeError, match="Cannot encode"):
        codec.serialize({"x": object()})


def test_registered_objects_are_dataclasses_with_versions():
    assert base.lookup("RequestSpec").VERSION == "1.4"


def test_subclasses_of_plain_values_travel_as_their_base():
    class Kind(enum.StrEnum):
        A = "a"

    sent = {"kind": Kind.A, "counts": collections.Counter(x=2), "pair": (1, 2.5),
            "flags": frozenset({True})}
    assert json.loads(json.dumps(codec.serialize(sent))) == {
        "kind": "a", "counts": {"x": 2}, "pair": [1, 2.5], "flags": [True]}
