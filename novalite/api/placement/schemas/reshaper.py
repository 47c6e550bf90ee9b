"""Body of POST /reshaper (1.30): new inventories per provider and consumers'
allocations, in the POST /allocations shape of the microversion."""

from __future__ import annotations

from novalite.api.placement.schemas import allocation
from novalite.api.placement.schemas.common import UUID_PATTERN
from novalite.api.placement.schemas.inventory import PUT_ALL


def _reshape(allocations: dict) -> dict:
    return {
        "type": "object",
        "properties": {
            "inventories": {"type": "object", "additionalProperties": False,
                            "patternProperties": {UUID_PATTERN: PUT_ALL}},
            "allocations": {**allocations, "minProperties": 0},
        },
        "required": ["inventories", "allocations"],
        "additionalProperties": False,
    }


POST_V1_30 = _reshape(allocation.POST_V1_28)
POST_V1_34 = _reshape(allocation.POST_V1_34)
POST_V1_38 = _reshape(allocation.POST_V1_38)
