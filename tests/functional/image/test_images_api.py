"""Creating, showing, updating (JSON patch) and deleting images over HTTP."""

from __future__ import annotations

import uuid

from novalite.image import db as images


def test_create_answers_201_with_glance_body_and_location(glance):
    body = glance["alice"].create(name="cirros", disk_format="qcow2",
                                  container_format="bare", hw_architecture="x86_64",
                                  tags=["a", "b"], min_ram=64)
    assert body["status"] == "queued" and body["visibility"] == "shared"
    assert body["owner"] == "p1" and body["hw_architecture"] == "x86_64"
    assert body["tags"] == ["a", "b"] and body["min_ram"] == 64
    assert body["self"] == f"/v2/images/{body['id']}"
    assert body["file"] == f"/v2/images/{body['id']}/file"
    assert body["schema"] == "/v2/schemas/image"
    for key in ("checksum", "size", "os_hash_algo", "os_hash_value", "virtual_size"):
        assert body[key] is None
    response = glance["alice"].http.post("/v2/images", json={"name": "again"})
    assert response.headers["location"] == f"/v2/images/{response.json()['id']}"


def test_create_with_id_and_duplicate_id(glance):
    image_id = str(uuid.uuid4())
    assert glance["alice"].create(id=image_id)["id"] == image_id
    glance["alice"].create(expected=409, id=image_id)


def test_create_refuses_read_only_reserved_and_invalid(glance):
    alice = glance["alice"]
    assert "'status' is read-only" in alice.create(expected=403, status="active")["message"]
    assert "'deleted' is reserved" in alice.create(expected=403, deleted=True)["message"]
    assert "does not match schema 'image'" in \
        alice.create(expected=400, disk_format="floppy")["message"]
    alice.create(expected=400, min_ram=-1)
    alice.create(expected=400, hw_cpu_cores=4)  # additional properties are strings
    response = alice.http.post("/v2/images", content=b"{not json")
    assert response.status_code == 400


def test_publicize_is_admin_only_communitize_is_not(glance):
    forbidden = glance["alice"].create(expected=403, visibility="public")
    assert forbidden["message"].startswith(
        "You are not authorized to complete publicize_image action.")
    assert glance["alice"].create(visibility="community")["visibility"] == "community"
    assert glance["admin"].create(visibility="public")["visibility"] == "public"


def test_show_unknown_is_404(glance):
    body = glance["alice"].show(str(uuid.uuid4()), expected=404)
    assert body["title"] == "Not Found"


def test_json_patch_replace_add_remove(glance):
    alice = glance["alice"]
    image = alice.create(name="before", hw_vm_mode="hvm")
    changed = alice.patch(image["id"], [
        {"op": "replace", "path": "/name", "value": "after"},
        {"op": "add", "path": "/img_hv_type", "value": "kvm"},
        {"op": "remove", "path": "/hw_vm_mode"},
        {"op": "replace", "path": "/min_disk", "value": 2},
        {"op": "replace", "path": "/tags", "value": ["x"]},
    ])
    assert changed["name"] == "after" and changed["img_hv_type"] == "kvm"
    assert "hw_vm_mode" not in changed and changed["min_disk"] == 2
    assert changed["tags"] == ["x"]
    assert alice.show(image["id"]) == changed


def test_json_patch_errors(glance):
    alice = glance["alice"]
    image_id = alice.create(name="p")["id"]
    assert alice.patch(image_id, [{"op": "move", "path": "/name"}], 400)["message"]
    alice.patch(image_id, {"op": "replace"}, 400)
    alice.patch(image_id, [{"op": "replace", "path": "/name"}], 400)
    alice.patch(image_id, [{"op": "replace", "path": "name", "value": "x"}], 400)
    alice.patch(image_id, [{"op": "replace", "path": "/status", "value": "active"}], 403)
    alice.patch(image_id, [{"op": "remove", "path": "/name"}], 403)
    alice.patch(image_id, [{"op": "replace", "path": "/nope", "value": "x"}], 409)
    alice.patch(image_id, [{"op": "remove", "path": "/nope"}], 409)
    alice.patch(image_id, [{"op": "replace", "path": "/min_ram", "value": "x"}], 400)
    alice.patch(image_id, [{"op": "replace", "path": "/visibility", "value": "public"}],
                403)
    alice.patch(image_id, [{"op": "replace", "path": "/owner", "value": "p2"}], 403)
    response = alice.http.patch(f"/v2/images/{image_id}", json=[],
                                headers={"Content-Type": "application/json"})
    assert response.status_code == 415
    assert alice.show(image_id)["name"] == "p"


def test_json_patch_v2_0_media_type(glance):
    alice = glance["alice"]
    image_id = alice.create(name="old")["id"]
    response = alice.http.patch(
        f"/v2/images/{image_id}", json=[{"replace": "/name", "value": "new"}],
        headers={"Content-Type": "application/openstack-images-v2.0-json-patch"})
    assert response.status_code == 200 and response.json()["name"] == "new"


def test_only_the_owner_modifies_and_deletes(glance):
    image_id = glance["alice"].create(name="mine", visibility="community")["id"]
    glance["bob"].patch(image_id, [{"op": "replace", "path": "/name", "value": "x"}], 403)
    assert glance["bob"].http.delete(f"/v2/images/{image_id}").status_code == 403
    glance["admin"].patch(image_id, [{"op": "replace", "path": "/name", "value": "x"}])


def test_default_image_is_admins_to_change(glance):
    glance["alice"].patch(images.DEFAULT_IMAGE_ID,
                          [{"op": "replace", "path": "/name", "value": "x"}], 403)


def test_delete_then_404_and_protected_is_403(glance):
    alice = glance["alice"]
    image_id = alice.create(name="gone")["id"]
    assert alice.http.delete(f"/v2/images/{image_id}").status_code == 204
    alice.show(image_id, expected=404)
    assert alice.http.delete(f"/v2/images/{image_id}").status_code == 404
    kept = alice.create(name="kept", protected=True)["id"]
    response = alice.http.delete(f"/v2/images/{kept}")
    assert response.status_code == 403 and "is protected" in response.json()["message"]
    alice.patch(kept, [{"op": "replace", "path": "/protected", "value": False}])
    assert alice.http.delete(f"/v2/images/{kept}").status_code == 204


def test_tags(glance):
    alice = glance["alice"]
    image_id = alice.create(name="t")["id"]
    assert alice.http.put(f"/v2/images/{image_id}/tags/gold").status_code == 204
    assert alice.http.put(f"/v2/images/{image_id}/tags/gold").status_code == 204
    assert alice.show(image_id)["tags"] == ["gold"]
    assert alice.http.delete(f"/v2/images/{image_id}/tags/gold").status_code == 204
    assert alice.http.delete(f"/v2/images/{image_id}/tags/gold").status_code == 404
    assert glance["bob"].http.put(f"/v2/images/{image_id}/tags/x").status_code == 404


def test_schemas(glance):
    response = glance["alice"].http.get("/v2/schemas/image")
    assert response.status_code == 200
    assert response.json()["name"] == "image"
    assert response.json()["additionalProperties"] == {"type": "string"}
    for path in ("images", "member", "members"):
        assert glance["alice"].http.get(f"/v2/schemas/{path}").json()["name"] == path
