"""What the all-in-one runs: simulated hosts with the fake driver, this machine with qemu."""

from __future__ import annotations

from novalite.all_in_one import AllInOne, compute_host_names


def test_fake_driver_simulates_numbered_hosts(conf):
    assert compute_host_names(3) == ["compute1", "compute2", "compute3"]
    assert "3 simulated hosts" in AllInOne(3).banner(8774)


def test_qemu_driver_runs_one_compute_named_after_the_machine(conf):
    conf.set_override("compute_driver", "qemu")
    conf.set_override("host", "node-a")
    assert compute_host_names(4) == ["node-a"]
    banner = AllInOne(4).banner(8774)
    assert "running: 1 QEMU host," in banner and "simulated" not in banner
    assert '"flavorRef": "42"' in banner
