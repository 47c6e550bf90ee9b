"""Every option module, in sample order: registered on CONF by novalite.conf, and listed for
oslo-config-generator and `novalite-manage config sample`."""

from novalite.conf import (
    allocation_candidates,
    api,
    cinder_client,
    compute,
    conductor,
    console,
    database,
    datapath,
    fake_driver,
    glance_client,
    identity,
    image,
    moves,
    network,
    neutron_client,
    notifications,
    oslo_policy,
    pci,
    placement_client,
    qemu,
    quota,
    rpc,
    scheduler,
    service,
    upgrade_levels,
    volume,
    workarounds,
    wsgi,
)

MODULES = (service, rpc, api, compute, conductor, database, scheduler, placement_client,
           allocation_candidates, pci, quota, fake_driver, upgrade_levels, workarounds,
           oslo_policy, image, identity, glance_client, qemu, network, neutron_client,
           moves, datapath, wsgi, volume, notifications, cinder_client, console)


def list_opts() -> list[tuple]:
    """Options per group name: several modules may add to one group ([placement])."""
    merged: dict = {}
    for module in MODULES:
        for group, opts in module.list_opts().items():
            name = getattr(group, "name", group)
            merged.setdefault(name, (group, []))[1].extend(opts)
    return list(merged.values())
