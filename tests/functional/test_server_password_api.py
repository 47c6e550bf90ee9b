"""/servers/{id}/os-server-password through real HTTP, against tempest's schemas: empty
until a guest posts one (tests/functional/test_metadata_api.py), clearing it is a 204,
and another project's server or an unknown one is Nova's 404."""

import uuid

from tests.functional.tempest_schemas import check


def test_show_is_empty_and_clear_is_204(cloud):
    server_id = cloud.boot()
    path = f"/servers/{server_id}/os-server-password"
    assert check(cloud.api.get(path), "v2_1", "servers", "show_password") == {"password": ""}
    check(cloud.api.delete(path), "v2_1", "servers", "server_actions_delete_password")
    assert cloud.api.get(path).json() == {"password": ""}


def test_other_projects_and_unknown_servers_are_404(cloud):
    server_id = cloud.boot()
    path = f"/servers/{server_id}/os-server-password"
    other = {"X-Auth-Token": "bob:proj2"}
    assert cloud.api.get(path, headers=other).status_code == 404
    assert cloud.api.delete(path, headers=other).status_code == 404
    missing = uuid.uuid4()
    response = cloud.api.get(f"/servers/{missing}/os-server-password")
    assert (response.status_code, response.json()["itemNotFound"]["message"]) == (
        404, f"Instance {missing} could not be found.")
