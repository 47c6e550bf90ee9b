"""/v2.0/floatingips."""

from __future__ import annotations

from novalite.api.network.resource import Resource, scope
from novalite.network import floating_ips

RESOURCE = Resource(
    name="floatingip", collection="floatingips", get=floating_ips.get,
    record=floating_ips.record, list=lambda s, sc, req: floating_ips.list_records(s, sc),
    create=lambda s, req, values: floating_ips.create(s, scope(req),
                                                      values.pop("project_id"), values),
    update=lambda s, req, row, values: floating_ips.update(s, scope(req), row, values),
    delete=lambda s, req, row: floating_ips.delete(s, row))
