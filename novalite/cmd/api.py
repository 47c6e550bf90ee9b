"""novalite-api: the HTTP APIs on [DEFAULT] osapi_compute_listen:osapi_compute_listen_port."""

from __future__ import annotations

from novalite.cmd import common, http_main
from novalite.conf import CONF
from novalite.service import assembly


@common.exits_cleanly_on_bad_config
def main() -> None:
    http_main.prepare()
    record = assembly.api()
    record.start()
    try:  # serving returns once requests in flight are done
        http_main.serve("novalite-api", CONF.osapi_compute_listen,
                        CONF.osapi_compute_listen_port, "/compute/v2.1")
    finally:
        record.stop()


if __name__ == "__main__":
    main()
