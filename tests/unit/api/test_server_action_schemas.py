"""Bodies of the pause/suspend family and os-getConsoleOutput, as Nova validates them."""

import pytest

from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault


@pytest.mark.parametrize("name", ["pause", "unpause", "suspend", "resume"])
@pytest.mark.parametrize("value", [None, {}, "anything", 1])
def test_the_argumentless_actions_take_any_value(name, value):
    validate(getattr(schema, name), {name: value})


@pytest.mark.parametrize("name", ["pause", "unpause", "suspend", "resume"])
def test_the_argumentless_actions_take_nothing_beside(name):
    with pytest.raises(HTTPFault) as caught:
        validate(getattr(schema, name), {name: None, "force": True})
    assert caught.value.code == 400


@pytest.mark.parametrize("body", [{}, {"length": None}, {"length": -1}, {"length": 0},
                                  {"length": 50}, {"length": "50"}, {"length": "-1"}])
def test_console_output_lengths_nova_accepts(body):
    validate(schema.get_console_output, {"os-getConsoleOutput": body})


@pytest.mark.parametrize(("body", "message"), [
    ({"length": -2}, "Invalid input for field/attribute length. Value: -2."),
    ({"length": "5 lines"}, "Invalid input for field/attribute length. Value: 5 lines."),
    ({"length": 2.5}, "Invalid input for field/attribute length. Value: 2.5."),
    ({"length": True}, "Invalid input for field/attribute length. Value: True."),
    ({"tail": 5}, "Invalid input for field/attribute os-getConsoleOutput."),
    (None, "Invalid input for field/attribute os-getConsoleOutput. Value: None."),
])
def test_console_output_bad_bodies(body, message):
    with pytest.raises(HTTPFault) as caught:
        validate(schema.get_console_output, {"os-getConsoleOutput": body})
    assert caught.value.code == 400
    assert caught.value.message.startswith(message), caught.value.message
