"""novalite-api: the HTTP APIs on [DEFAULT] osapi_compute_listen:osapi_compute_listen_port."""

from __future__ import annotations

import logging

from novalite import affinity, http_server
from novalite.cmd import common
from novalite.conf import CONF
from novalite.db import session
from novalite.service import assembly

LOG = logging.getLogger(__name__)


@common.exits_cleanly_on_bad_config
def main() -> None:
    common.parse_args()
    affinity.pin()
    session.wait_for_database()
    record = assembly.api()
    record.start()
    server = http_server.make_server(CONF.osapi_compute_listen, CONF.osapi_compute_listen_port)
    LOG.info("novalite-api listening on http://%s:%s/compute/v2.1",
             CONF.osapi_compute_listen, CONF.osapi_compute_listen_port)
    http_server.freeze_heap()
    try:
        http_server.run_foreground(server)  # returns once requests in flight are done
    finally:
        record.stop()


if __name__ == "__main__":
    main()
