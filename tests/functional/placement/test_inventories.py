"""/resource_providers/{uuid}/inventories: per class and bulk, generations, in-use."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import error_of

FULL = {"total": 8, "reserved": 0, "min_unit": 1, "max_unit": 2147483647, "step_size": 1,
        "allocation_ratio": 1.0}


def test_bulk_replace_and_show(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    response = api.put(base, json={"resource_provider_generation": 0,
                                   "inventories": {"VCPU": {"total": 8}}})
    assert response.status_code == 200
    assert response.json() == {"resource_provider_generation": 1,
                               "inventories": {"VCPU": FULL}}
    assert api.get(base).json()["inventories"] == {"VCPU": FULL}
    assert api.get(f"{base}/VCPU").json() == {"resource_provider_generation": 1, **FULL}
    response = api.get(f"{base}/DISK_GB")
    assert response.status_code == 404
    stale = api.put(base, json={"resource_provider_generation": 0, "inventories": {}})
    assert stale.status_code == 409
    assert error_of(stale)["code"] == "placement.concurrent_update"


def test_bulk_replace_updates_adds_and_removes_classes_at_once(api):
    """One PUT changing two classes, adding two and dropping one: each row gets its own
    values (they are written in one statement per kind)."""
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    first = {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 4096, "reserved": 512},
             "DISK_GB": {"total": 100}}
    assert api.put(base, json={"resource_provider_generation": 0,
                               "inventories": first}).status_code == 200
    second = {"VCPU": {"total": 16, "allocation_ratio": 4.0},
              "MEMORY_MB": {"total": 8192, "reserved": 1024, "step_size": 2},
              "IPV4_ADDRESS": {"total": 10, "max_unit": 1},
              "SRIOV_NET_VF": {"total": 4, "min_unit": 2}}
    response = api.put(base, json={"resource_provider_generation": 1, "inventories": second})
    assert response.status_code == 200
    expected = {name: {**FULL, **values} for name, values in second.items()}
    assert response.json() == {"resource_provider_generation": 2, "inventories": expected}
    assert api.get(base).json()["inventories"] == expected


def test_post_one_class(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    response = api.post(base, json={"resource_class": "DISK_GB", "total": 100,
                                    "reserved": 10})
    assert response.status_code == 201
    assert response.headers["location"].endswith(f"{base}/DISK_GB")
    assert response.json()["resource_provider_generation"] == 1
    again = api.post(base, json={"resource_class": "DISK_GB", "total": 100})
    assert again.status_code == 409
    unknown = api.post(base, json={"resource_class": "CUSTOM_NO", "total": 1})
    assert unknown.status_code == 400


def test_update_one_class(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    gen = api.inventory(rp, VCPU=4)
    response = api.put(f"{base}/VCPU", json={"resource_provider_generation": gen,
                                             "total": 6, "allocation_ratio": 2.0})
    assert response.status_code == 200
    assert response.json()["total"] == 6 and response.json()["allocation_ratio"] == 2.0
    stale = api.put(f"{base}/VCPU", json={"resource_provider_generation": gen, "total": 6})
    assert stale.status_code == 409
    missing = api.put(f"{base}/DISK_GB", json={"resource_provider_generation": gen + 1,
                                               "total": 6})
    assert missing.status_code == 400
    assert "No inventory record with resource class" in error_of(missing)["detail"]


def test_reserved_equal_total_allowed_from_1_26(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    body = {"resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 4, "reserved": 4}}}
    response = api.at("1.25").put(base, json=body)
    assert response.status_code == 400
    assert "greater than or equal to total" in error_of(response)["detail"]
    assert api.at("1.26").put(base, json=body).status_code == 200
    body = {"resource_provider_generation": 1,
            "inventories": {"VCPU": {"total": 4, "reserved": 5}}}
    assert api.put(base, json=body).status_code == 400


def test_bad_values_are_400(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    for bad in ({"total": 0}, {"total": 1, "step_size": 0}, {"total": 1, "extra": 1},
                {"total": 2147483648}):
        response = api.put(base, json={"resource_provider_generation": 0,
                                       "inventories": {"VCPU": bad}})
        assert response.status_code == 400, bad


def test_in_use_inventory_cannot_be_removed(api):
    rp = api.provider()
    base = f"/resource_providers/{rp['uuid']}/inventories"
    gen = api.inventory(rp, VCPU=4, DISK_GB=10)
    assert api.claim(str(uuid.uuid4()), {rp["uuid"]: {"VCPU": 1}}).status_code == 204
    gen += 1
    response = api.put(base, json={"resource_provider_generation": gen,
                                   "inventories": {"DISK_GB": {"total": 10}}})
    assert response.status_code == 409
    assert error_of(response)["code"] == "placement.inventory.inuse"
    assert api.delete(f"{base}/VCPU").status_code == 409
    response = api.delete(base)
    assert response.status_code == 409
    assert error_of(response)["code"] == "placement.inventory.inuse"
    assert api.delete(f"{base}/DISK_GB").status_code == 204
    assert api.delete(f"{base}/DISK_GB").status_code == 404


def test_delete_all_needs_1_5(api):
    rp = api.provider()
    api.inventory(rp, VCPU=4)
    base = f"/resource_providers/{rp['uuid']}/inventories"
    assert api.at("1.4").delete(base).status_code == 404
    assert api.at("1.5").delete(base).status_code == 204
    assert api.get(base).json() == {"resource_provider_generation": 2, "inventories": {}}


def test_unknown_provider_is_404(api):
    response = api.get(f"/resource_providers/{uuid.uuid4()}/inventories")
    assert response.status_code == 404
