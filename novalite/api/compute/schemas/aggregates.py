"""Request bodies of /os-aggregates (Nova's schemas at 2.1)."""

_name = {"type": "string", "format": "name", "minLength": 1, "maxLength": 255}
_name_spaced = {"type": "string", "format": "name_with_leading_trailing_spaces",
                "minLength": 1, "maxLength": 255}
_az = {"oneOf": [{"type": "string", "format": "az_name", "minLength": 1, "maxLength": 255},
                 {"type": "null"}]}
_fqdn = {"type": "string", "pattern": "^[a-zA-Z0-9-._]*$", "minLength": 1, "maxLength": 255}
_metadata_with_null = {"type": "object",
                       "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$": {
                           "type": ["string", "null"], "maxLength": 255}},
                       "additionalProperties": False}


def _body(key: str, properties: dict, required: list[str], **extra) -> dict:
    return {"type": "object",
            "properties": {key: {"type": "object", "properties": properties,
                                 "required": required, "additionalProperties": False,
                                 **extra}},
            "required": [key], "additionalProperties": False}


create = _body("aggregate", {"name": _name, "availability_zone": _az}, ["name"])
update = _body("aggregate", {"name": _name_spaced, "availability_zone": _az}, [],
               anyOf=[{"required": ["name"]}, {"required": ["availability_zone"]}])
add_host = _body("add_host", {"host": _fqdn}, ["host"])
remove_host = _body("remove_host", {"host": _fqdn}, ["host"])
set_metadata = _body("set_metadata", {"metadata": _metadata_with_null}, ["metadata"])
# 2.81: the images to pre-cache, each once (duplicates are refused by the handler, with
# Nova's text)
cache_images = {
    "type": "object",
    "properties": {"cache": {
        "type": "array", "minItems": 1,
        "items": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}},
                  "required": ["id"], "additionalProperties": False}}},
    "required": ["cache"], "additionalProperties": False,
}
