"""Cinder's rules for changing a volume type's extra specs, on a real database."""

import pytest

from novalite.db import session
from novalite.volume import errors, states, volume_types
from novalite.volume.records import MULTIATTACH
from tests.statements import statements
from tests.unit.volume.builders import make_volume, multiattach_type


def _refusal(type_id: str, specs: dict[str, str]) -> str:
    with pytest.raises(errors.ExtraSpecsRefused) as refused, session.writer() as s:
        volume_types.check_specs_change(s, type_id, specs)
    return refused.value.format_message()


def test_the_specs_of_a_type_in_use_do_not_change(db):
    make_volume(states.AVAILABLE, multiattach=True)  # keeps what its type said
    assert _refusal(multiattach_type(), {"multiattach": "<is> False"}) == (
        "Volume Type is currently in use.")
    assert _refusal(multiattach_type(), {}) == "Volume Type is currently in use."


def test_cacheable_never_goes_with_multiattach(db):
    with session.writer() as s:
        made = volume_types.create(s, "fast", None, True, {"cacheable": MULTIATTACH}).id
        volume_types.check_specs_change(s, made, {"multiattach": "<is> False"})
    assert _refusal(made, {"multiattach": MULTIATTACH}) == (
        "cacheable cannot be set with multiattach.")
    assert _refusal(multiattach_type(), {"cacheable": MULTIATTACH}) == (
        "cacheable cannot be set with multiattach.")


def test_a_type_is_found_by_id_before_name_in_one_read(db):
    """A create's `volume_type` names a type by id or by name; a type named as another
    type's id is not the one found by that id."""
    with session.writer() as s:  # the type named so made first
        volume_types.create(s, "fast-id", None, True, {"c": "3"})
        fast = volume_types.create(s, "fast", None, True, {"a": "1", "b": "2"},
                                   type_id="fast-id")
    for key in ("fast-id", "fast"):
        with session.reader() as s, statements() as seen:
            found = volume_types.find(s, key)
        assert (found.id, found.name, found.extra_specs) == (fast.id, "fast",
                                                             {"a": "1", "b": "2"})
        assert len([q for q in seen if not q.startswith("BEGIN")]) == 1
    with pytest.raises(errors.VolumeTypeNotFoundByName), session.reader() as s:
        volume_types.find(s, "slow")
