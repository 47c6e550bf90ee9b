"""novalite-placement: the placement API alone (upstream's placement-api), on [DEFAULT]
placement_listen:placement_listen_port, reaching the database as the other services do.
The services reach it through the catalog or [placement] endpoint_override; novalite-api
serves placement too, for a cloud that runs no such process."""

from __future__ import annotations

from novalite.api.app import build_placement_app
from novalite.cmd import common, http_main
from novalite.conf import CONF


@common.exits_cleanly_on_bad_config
def main() -> None:
    http_main.prepare()
    http_main.serve("novalite-placement", CONF.placement_listen, CONF.placement_listen_port,
                    "/placement", build_placement_app())


if __name__ == "__main__":
    main()
