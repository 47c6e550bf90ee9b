"""novalite-network: the network API alone (Neutron's neutron-server), on [DEFAULT]
bind_host:bind_port, reaching the database as the other services do. Computes reach it
over HTTP through the catalog or [neutron] endpoint_override. With [datapath]
network_node it is also the network node of real guests: DHCP and routers (one such
process per cloud)."""

from __future__ import annotations

from novalite.api.app import build_network_app
from novalite.cmd import common, http_main
from novalite.conf import CONF
from novalite.network import network_node


@common.exits_cleanly_on_bad_config
def main() -> None:
    http_main.prepare()
    if CONF.datapath.network_node:
        network_node.start()
    http_main.serve("novalite-network", CONF.bind_host, CONF.bind_port, "/networking/v2.0",
                    build_network_app())


if __name__ == "__main__":
    main()
