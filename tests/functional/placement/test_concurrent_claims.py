"""Many clients claiming at once on a provider that fits only some of them (SQLite):
exactly capacity is granted, the rest are 409s, and nothing is a 500."""

from __future__ import annotations

import concurrent.futures
import uuid

from tests.functional.placement.conftest import Placement


def test_threads_never_overcommit_a_tight_provider(api, server_url):
    rp = api.provider("tight")
    api.inventory(rp, VCPU=10, MEMORY_MB={"total": 1000, "reserved": 200})
    clients = [api.at("latest") for _ in range(8)]

    def claim(i: int) -> int:
        client: Placement = clients[i % len(clients)]
        return client.claim(str(uuid.uuid4()), {rp["uuid"]: {"VCPU": 1, "MEMORY_MB": 100}}
                            ).status_code

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(claim, range(40)))
    assert sorted(set(statuses)) == [204, 409]
    assert statuses.count(204) == 8  # MEMORY_MB: (1000 - 200) / 100
    usages = api.get(f"/resource_providers/{rp['uuid']}/usages").json()
    assert usages["usages"] == {"VCPU": 8, "MEMORY_MB": 800}
    assert usages["resource_provider_generation"] == 1 + 8
