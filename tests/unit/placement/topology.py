"""A builder for provider trees in the database, for tests of the candidate search."""

from __future__ import annotations

import uuid as uuid_mod

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from novalite.placement.candidates.snapshot import (
    AGG,
    ALLOC,
    INV,
    RC,
    RP,
    RP_AGG,
    RP_TRAIT,
    TRAIT,
)

STANDARD = ["VCPU", "MEMORY_MB", "DISK_GB", "SRIOV_NET_VF", "IPV4_ADDRESS",
            "NET_BW_EGR_KILOBIT_PER_SEC", "CUSTOM_MAGIC"]


class Topology:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.ids: dict[str, int] = {}
        self.uuids: dict[str, str] = {}
        self.names: dict[str, str] = {}
        for rc in STANDARD:
            self._name_id(RC, rc)

    def _name_id(self, table, name: str) -> int:
        row = self.conn.execute(select(table.c.id).where(table.c.name == name)).first()
        if row:
            return row[0]
        return self.conn.execute(insert(table).values(name=name)).inserted_primary_key[0]

    def trait(self, name: str) -> int:
        return self._name_id(TRAIT, name)

    def _agg(self, agg: str) -> int:
        row = self.conn.execute(select(AGG.c.id).where(AGG.c.uuid == agg)).first()
        if row:
            return row[0]
        return self.conn.execute(insert(AGG).values(uuid=agg)).inserted_primary_key[0]

    def provider(self, name: str, parent: str | None = None,
                 inventory: dict[str, int | dict] | None = None,
                 traits: list[str] = (), aggs: list[str] = ()) -> str:
        """Add a provider; an inventory value is a total or a dict of fields."""
        uuid = str(uuid_mod.uuid5(uuid_mod.NAMESPACE_URL, name))
        parent_id = self.ids[parent] if parent else None
        rp_id = self.conn.execute(insert(RP).values(
            uuid=uuid, name=name, generation=0, parent_provider_id=parent_id,
        )).inserted_primary_key[0]
        root = self.conn.execute(select(RP.c.root_provider_id).where(
            RP.c.id == parent_id)).scalar() if parent_id else rp_id
        self.conn.execute(RP.update().where(RP.c.id == rp_id).values(root_provider_id=root))
        self.ids[name], self.uuids[name] = rp_id, uuid
        self.names[uuid] = name
        for rc, spec in (inventory or {}).items():
            fields = {"total": spec} if isinstance(spec, int) else dict(spec)
            fields.setdefault("max_unit", fields["total"])
            self.conn.execute(insert(INV).values(
                resource_provider_id=rp_id, resource_class_id=self._name_id(RC, rc),
                **{"reserved": 0, "min_unit": 1, "step_size": 1, "allocation_ratio": 1.0,
                   **fields}))
        for trait in traits:
            self.conn.execute(insert(RP_TRAIT).values(resource_provider_id=rp_id,
                                                      trait_id=self.trait(trait)))
        for agg in aggs:
            self.conn.execute(insert(RP_AGG).values(resource_provider_id=rp_id,
                                                    aggregate_id=self._agg(agg)))
        return uuid

    def allocate(self, name: str, rc: str, used: int, consumer: str = "c1") -> None:
        self.conn.execute(insert(ALLOC).values(
            resource_provider_id=self.ids[name], resource_class_id=self._name_id(RC, rc),
            consumer_id=consumer, used=used))

    @staticmethod
    def agg(name: str) -> str:
        return str(uuid_mod.uuid5(uuid_mod.NAMESPACE_DNS, name))
