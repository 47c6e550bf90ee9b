"""novalite-network: the network API alone (Neutron's neutron-server), on [DEFAULT]
bind_host:bind_port, reaching the database as the other services do. Computes reach it
over HTTP through the catalog or [neutron] endpoint_override. With [datapath]
network_node it is also the network node of real guests: DHCP and routers (one such
process per cloud)."""

from __future__ import annotations

import logging

from novalite import affinity, http_server
from novalite.api.app import build_network_app
from novalite.cmd import common
from novalite.conf import CONF
from novalite.db import session
from novalite.network import network_node

LOG = logging.getLogger(__name__)


@common.exits_cleanly_on_bad_config
def main() -> None:
    common.parse_args()
    affinity.pin()
    session.wait_for_database()
    if CONF.datapath.network_node:
        network_node.start()
    server = http_server.make_server(CONF.bind_host, CONF.bind_port, build_network_app())
    LOG.info("novalite-network listening on http://%s:%s/networking/v2.0",
             CONF.bind_host, CONF.bind_port)
    http_server.freeze_heap()
    http_server.run_foreground(server)


if __name__ == "__main__":
    main()
