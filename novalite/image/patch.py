"""Glance's JSON patch for images: media types, operation parsing and applying the
operations to an image's attributes, properties and tags (before anything is saved)."""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any

from novalite.image import errors
from novalite.image.record import READ_ONLY, RESERVED, ImageRecord

# media type -> JSON-schema draft whose patch syntax it carries
MEDIA_TYPES = {
    "application/openstack-images-v2.0-json-patch": 4,
    "application/openstack-images-v2.1-json-patch": 10,
}
OPERATIONS = ("add", "remove", "replace")
RESERVED_NAMESPACE = "os_glance"


class BadPatch(errors.ImageError):
    msg_fmt = "%(reason)s"


class ForbiddenPatch(errors.ImageError):
    msg_fmt = "%(reason)s"
    code = 403


class PatchConflict(errors.ImageError):
    msg_fmt = "%(reason)s"
    code = 409


@dataclasses.dataclass(frozen=True)
class Change:
    op: str
    path: str  # the attribute or property name (pointers have one level here)
    value: Any = None


def _operation(raw: dict, draft: int) -> tuple[str, str]:
    if draft == 10:
        op = raw.get("op")
        if op not in OPERATIONS:
            reason = (f"Invalid operation: `{op}`. " if op is not None else
                      "Unable to find `op` in JSON Schema change. ")
            raise BadPatch(reason=reason + f"It must be one of the following: "
                                           f"{', '.join(OPERATIONS)}.")
        if "path" not in raw:
            raise BadPatch(reason="Unable to find 'path' in JSON Schema change")
        return op, raw["path"]
    ops = [o for o in OPERATIONS if o in raw]
    if len(ops) != 1:
        raise BadPatch(reason='Operation objects must contain exactly one member named '
                              '"add", "remove", or "replace".')
    return ops[0], raw[ops[0]]


def _pointer(pointer: Any) -> str:
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise BadPatch(reason=f'Pointer `{pointer}` does not start with "/".')
    if re.search("~[^01]", pointer) or pointer.endswith("~"):
        raise BadPatch(reason=f'Pointer `{pointer}` contains "~" not part of a recognized '
                              "escape sequence.")
    parts = [p.replace("~1", "/").replace("~0", "~").strip()
             for p in pointer[1:].split("/")]
    if len(parts) != 1 or not parts[0]:
        raise BadPatch(reason=f"Invalid JSON pointer for this resource: '{pointer}'")
    return parts[0]


def _check_writable(name: str) -> None:
    if name in READ_ONLY or name == "id":
        raise ForbiddenPatch(reason=f"Attribute '{name}' is read-only.")
    if name in RESERVED or name.startswith(RESERVED_NAMESPACE):
        raise ForbiddenPatch(reason=f"Attribute '{name}' is reserved.")


def parse(body: Any, media_type: str) -> list[Change]:
    """The request's operations, checked as Glance's deserializer checks them."""
    draft = MEDIA_TYPES[media_type]
    if not isinstance(body, list):
        raise BadPatch(reason="Request body must be a JSON array of operation objects.")
    changes = []
    for raw in body:
        if not isinstance(raw, dict):
            raise BadPatch(reason="Operations must be JSON objects.")
        op, pointer = _operation(raw, draft)
        name = _pointer(pointer)
        if op != "remove" and "value" not in raw:
            raise BadPatch(reason=f'Operation "{op}" requires a member named "value".')
        _check_writable(name)
        changes.append(Change(op, name, raw.get("value")))
    return changes


def _is_base(name: str) -> bool:
    return name in ImageRecord.__dataclass_fields__ and name not in ("properties",)


def apply(image: ImageRecord, changes: list[Change], draft: int = 10) -> ImageRecord:
    """A copy of `image` with the changes made, in order, as Glance's controller does."""
    image = copy.deepcopy(image)
    for change in changes:
        name, base = change.path, _is_base(change.path)
        present = base or name in image.properties
        if change.op == "remove":
            if base:
                raise ForbiddenPatch(reason=f"Property {name} may not be removed.")
            if not present:
                raise PatchConflict(reason=f"Property {name} does not exist.")
            del image.properties[name]
        elif change.op == "replace" and not present:
            raise PatchConflict(reason=f"Property {name} does not exist.")
        elif change.op == "add" and present and draft == 4:
            raise PatchConflict(reason=f"Property {name} already present.")
        elif base:
            setattr(image, name, change.value)
        else:
            image.properties[name] = change.value
    return image
