"""The network data layer on a migrated SQLite database, with helpers that make a
network and subnet in one call."""

from __future__ import annotations

from typing import Any

import pytest

from novalite.network import networks, subnets, transaction
from novalite.network.scope import Scope

PROJECT = Scope("p1")


@pytest.fixture
def make_network(db):
    def make(cidr: str | None = "10.0.0.0/24", project: str = "p1", **subnet: Any
             ) -> tuple[dict, dict | None]:
        def work(s):
            net = networks.create(s, project, {"name": "n"}, {})
            row = networks.get(s, Scope(project), net["id"])
            sub = subnets.create(s, row, project, {"cidr": cidr, "ip_version": 4, **subnet}) \
                if cidr else None
            return net, sub
        return transaction.write(work)

    return make
