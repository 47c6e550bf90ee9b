"""Routers over HTTP: who may choose whether a gateway translates source addresses."""

from __future__ import annotations

from tests.functional.network.neutron import error


def test_only_an_admin_chooses_whether_a_gateway_snats(net, user):
    client, _ = user
    public = net.get("/networks", params={"name": "public"}).json()["networks"][0]
    gateway = {"network_id": public["id"], "enable_snat": False}
    message = error(client.post("/routers", json={"router": {
        "name": "r", "external_gateway_info": gateway}}), 403, "PolicyNotAuthorized")
    assert message == "(rule:create_router:external_gateway_info:enable_snat) is " \
                      "disallowed by policy"
    router = client.post("/routers", json={"router": {
        "name": "r", "external_gateway_info": {"network_id": public["id"]}}})
    assert router.status_code == 201, router.text
    path = f"/routers/{router.json()['router']['id']}"
    assert router.json()["router"]["external_gateway_info"]["enable_snat"] is True
    error(client.put(path, json={"router": {"external_gateway_info": gateway}}), 403,
          "PolicyNotAuthorized")
    by_admin = net.put(path, json={"router": {"external_gateway_info": gateway}})
    assert by_admin.status_code == 200, by_admin.text
    assert by_admin.json()["router"]["external_gateway_info"]["enable_snat"] is False
