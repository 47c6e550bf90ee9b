"""novalite-placement: the placement API alone (upstream's placement-api), on [DEFAULT]
placement_listen:placement_listen_port, reaching the database as the other services do.
The services reach it through the catalog or [placement] endpoint_override; novalite-api
serves placement too, for a cloud that runs no such process."""

from __future__ import annotations

import logging

from novalite import affinity, http_server
from novalite.api.app import build_placement_app
from novalite.cmd import common
from novalite.conf import CONF
from novalite.db import session

LOG = logging.getLogger(__name__)


@common.exits_cleanly_on_bad_config
def main() -> None:
    common.parse_args()
    affinity.pin()
    session.wait_for_database()
    server = http_server.make_server(CONF.placement_listen, CONF.placement_listen_port,
                                     build_placement_app())
    LOG.info("novalite-placement listening on http://%s:%s/placement",
             CONF.placement_listen, CONF.placement_listen_port)
    http_server.freeze_heap()
    http_server.run_foreground(server)


if __name__ == "__main__":
    main()
