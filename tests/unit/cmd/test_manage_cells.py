"""`novalite-manage service list` and `cell_v2`: one cell."""

from __future__ import annotations

from novalite.cmd import manage_cells
from novalite.db.api import services


def test_service_list_shows_every_service_with_its_zone_and_state(db, capsys):
    services.service_get_or_create("compute1", "novalite-compute", "compute")
    services.service_get_or_create("ctl", "novalite-conductor", "conductor")
    assert manage_cells.service_list() == 0
    out = capsys.readouterr().out
    assert "| novalite-compute   | compute1 | nova     | enabled | up" in out
    assert "| novalite-conductor | ctl      | internal |" in out


def test_list_cells_hides_passwords(conf, capsys):
    conf.set_override("transport_url", "rabbit://guest:secret@127.0.0.1:5672/")
    conf.set_override("connection", "postgresql+psycopg://nova:pw@db/nova", group="database")
    assert manage_cells.list_cells() == 0
    out = capsys.readouterr().out
    assert "rabbit://guest:****@127.0.0.1:5672/" in out
    assert "postgresql+psycopg://nova:****@db/nova" in out and "secret" not in out
