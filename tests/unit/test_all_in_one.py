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


def test_a_start_disables_the_computes_it_no_longer_runs_and_enables_them_again(db):
    from novalite.all_in_one import NOT_RUN_REASON
    from novalite.db.api import services

    for host in ("compute1", "compute2", "elsewhere"):
        services.service_get_or_create(host, "novalite-compute", "compute")
    services.service_update(
        services.service_get_by_host_and_binary("elsewhere", "novalite-compute").id,
        {"disabled": True, "disabled_reason": "the operator's reason"})

    def state() -> dict[str, tuple[bool, str | None]]:
        return {s.host: (s.disabled, s.disabled_reason)
                for s in services.service_get_all("novalite-compute")}

    AllInOne(1)._disable_computes_not_run()
    assert state() == {"compute1": (False, None), "compute2": (True, NOT_RUN_REASON),
                       "elsewhere": (True, "the operator's reason")}
    AllInOne(2)._disable_computes_not_run()
    assert state()["compute2"] == (False, None)
    assert state()["elsewhere"] == (True, "the operator's reason")
