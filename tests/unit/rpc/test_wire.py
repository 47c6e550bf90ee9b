"""What a message may hold on the wire: the standard library's JSON, no more."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest

from novalite.rpc import wire


def test_a_message_comes_back_equal_as_the_standard_library_would_give_it():
    message = {"method": "build", "args": {"ints": [1, 2**62], "floats": [0.1, 1e300],
                                           "text": "naïve ✓", "none": None, "flag": True,
                                           "pair": (1, "a"), 3: "int key"}}
    assert wire.decode(wire.encode(message)) == json.loads(json.dumps(message))


@pytest.mark.parametrize("value", [datetime.datetime(2026, 1, 1), datetime.date(2026, 1, 1),
                                   {1, 2}, object()])
def test_what_the_standard_library_refuses_is_refused(value):
    with pytest.raises(TypeError, match="is not JSON serializable"):
        wire.encode({"args": {"value": value}})


def test_a_dataclass_is_refused_until_the_codec_made_it_plain():
    @dataclasses.dataclass
    class Point:
        x: int

    with pytest.raises(TypeError, match="not JSON serializable: Point"):
        wire.encode({"args": {"point": Point(1)}})


def test_what_is_not_json_is_a_value_error():
    with pytest.raises(ValueError):
        wire.decode(b"{not json")


def test_equal_messages_have_one_identity_whatever_their_keys_order():
    assert wire.identity({"a": 1, "b": {"c": 2, "d": 3}}) == \
        wire.identity({"b": {"d": 3, "c": 2}, "a": 1})
    assert wire.identity({"a": 1}) != wire.identity({"a": 2})
