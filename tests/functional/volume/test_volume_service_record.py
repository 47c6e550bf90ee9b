"""The volume service's record: it is what /scheduler-stats lists pools from, and it is
Cinder's, not Nova's, so the compute API's services, hosts and zones never show it."""

from __future__ import annotations

from novalite.db.api import services


def test_the_volume_service_is_registered_but_not_shown_by_nova(cloud):
    assert [s.binary for s in services.service_get_all("novalite-volume")] == [
        "novalite-volume"]
    listed = cloud.api.get("/os-services").json()["services"]
    assert "novalite-volume" not in {s["binary"] for s in listed}
    hosts = cloud.api.get("/os-hosts").json()["hosts"]
    assert "volume" not in {h["service"] for h in hosts}
    zones = cloud.api.get("/os-availability-zone/detail").json()["availabilityZoneInfo"]
    shown = {binary for zone in zones for services_ in (zone["hosts"] or {}).values()
             for binary in services_}
    assert "novalite-volume" not in shown and "novalite-conductor" in shown
