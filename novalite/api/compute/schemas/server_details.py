"""Bodies of /servers/{id}/metadata and /servers/{id}/tags (Nova's schemas)."""

from novalite.api.compute.schemas.servers import MAX_TAGS, TAG

_metadata = {"type": "object",
             "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$":
                                   {"type": "string", "maxLength": 255}},
             "additionalProperties": False}

metadata = {"type": "object", "properties": {"metadata": _metadata},
            "required": ["metadata"], "additionalProperties": False}

meta_item = {"type": "object",
             "properties": {"meta": {**_metadata, "minProperties": 1, "maxProperties": 1}},
             "required": ["meta"], "additionalProperties": False}

tags = {"type": "object",
        "properties": {"tags": {"type": "array", "items": TAG, "maxItems": MAX_TAGS}},
        "required": ["tags"], "additionalProperties": False}

tag = TAG
