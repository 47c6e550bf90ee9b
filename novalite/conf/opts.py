"""Every option module, in sample order: registered on CONF by novalite.conf, and listed for
oslo-config-generator and `novalite-manage config sample`."""

from novalite.conf import (
    api,
    compute,
    database,
    fake_driver,
    identity,
    pci,
    quota,
    rpc,
    scheduler,
    service,
    upgrade_levels,
    workarounds,
)

MODULES = (service, rpc, api, compute, database, scheduler, pci, quota, fake_driver,
           upgrade_levels, workarounds, identity)


def list_opts() -> list[tuple]:
    merged: dict = {}
    for module in MODULES:
        for group, opts in module.list_opts().items():
            merged.setdefault(group, []).extend(opts)
    return list(merged.items())
