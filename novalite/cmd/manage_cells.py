"""`novalite-manage cell_v2 ...` and `service list`: what devstack users type, answered for a
cloud with one cell.

novalite has no cells v2: one database and one message bus are its only cell, and a
compute joins it when its service first starts. The listing commands show that cell and
its hosts; the setup commands have nothing to do and say so (exit 0, so devstack-style
scripts go on).
"""

from __future__ import annotations

from collections.abc import Sequence

from novalite.conf import CONF

ONE_CELL = ("novalite has a single cell (its database and message bus); computes join it "
            "when their service first starts, so there is nothing to set up or discover.")


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(str(v)) for v in column) for column in zip(header, *rows, strict=True)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(values: tuple[str, ...]) -> str:
        return "| " + " | ".join(str(v).ljust(w) for v, w in zip(values, widths,
                                                                  strict=True)) + " |"

    return "\n".join([rule, line(header), rule, *map(line, rows), rule])


def _mask(url: str) -> str:
    """A URL with its password hidden, as nova-manage shows cell connections."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:****@{host}"


def list_cells() -> int:
    """The one cell: its message bus and database."""
    database = CONF.database.connection or f"sqlite:///{CONF.state_path}/novalite.sqlite"
    print(_table(("Name", "UUID", "Transport URL", "Database Connection", "Disabled"),
                 [("cell1", "-", _mask(CONF.transport_url or "in-process"), _mask(database),
                   "False")]))
    return 0


def list_hosts() -> int:
    """The compute hosts of the cell."""
    from novalite.compute.aggregates import COMPUTE_BINARY
    from novalite.db.api import services

    rows = [("cell1", "-", s.host) for s in services.service_get_all(COMPUTE_BINARY)]
    print(_table(("Cell Name", "Cell UUID", "Hostname"), rows))
    return 0


def nothing_to_do() -> int:
    """Nothing to do: the one cell needs no setup."""
    print(ONE_CELL)
    return 0


def discover_hosts() -> int:
    """Nothing to do: computes join the cell by themselves (--verbose lists them)."""
    print(ONE_CELL)
    if CONF.category.verbose:
        list_hosts()
    return 0


def service_list() -> int:
    """Every service as `openstack compute service list` shows it."""
    from novalite import availability_zones
    from novalite.service import liveness

    rows = [(str(s.id), s.binary, s.host, zone,
             "disabled" if s.disabled else "enabled",
             "up" if liveness.service_is_up(s) else "down",
             s.updated_at.isoformat() if s.updated_at else "-", s.disabled_reason or "-")
            for s, zone in availability_zones.services_with_zones()]
    print(_table(("Id", "Binary", "Host", "Zone", "Status", "State", "Updated At",
                  "Disabled Reason"), rows))
    return 0
