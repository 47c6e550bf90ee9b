"""Project isolation by visibility, and sharing through the members API."""

from __future__ import annotations

from novalite.image import db as images


def _images(glance):
    alice, admin = glance["alice"], glance["admin"]
    return {
        "private": alice.create(name="private", visibility="private")["id"],
        "shared": alice.create(name="shared")["id"],
        "community": alice.create(name="community", visibility="community")["id"],
        "public": admin.create(name="public", visibility="public")["id"],
    }


def test_each_project_sees_what_glance_shows_it(glance):
    made = _images(glance)
    alice, bob, admin = glance["alice"], glance["bob"], glance["admin"]
    mine = {made["private"], made["shared"], made["community"]}
    assert alice.ids() == mine | {made["public"], images.DEFAULT_IMAGE_ID}
    assert bob.ids() == {made["public"], images.DEFAULT_IMAGE_ID}
    assert bob.ids(visibility="community") == {made["community"]}
    assert bob.ids(visibility="all") == {made["public"], made["community"],
                                          images.DEFAULT_IMAGE_ID}
    assert alice.ids(visibility="private") == {made["private"]}
    assert bob.ids(visibility="private") == set()
    assert admin.ids() >= set(made.values())
    for name in ("private", "shared"):
        bob.show(made[name], expected=404)
        assert bob.http.get(f"/v2/images/{made[name]}/file").status_code == 404
        assert bob.http.delete(f"/v2/images/{made[name]}").status_code == 404
    bob.show(made["community"])
    bob.show(made["public"])


def test_sharing_through_members(glance):
    alice, bob = glance["alice"], glance["bob"]
    image_id = alice.create(name="shared")["id"]
    response = alice.http.post(f"/v2/images/{image_id}/members", json={"member": "p2"})
    assert response.status_code == 200
    member = response.json()
    assert member["status"] == "pending" and member["member_id"] == "p2"
    assert member["image_id"] == image_id and member["schema"] == "/v2/schemas/member"
    duplicate = alice.http.post(f"/v2/images/{image_id}/members", json={"member": "p2"})
    assert duplicate.status_code == 409

    bob.show(image_id)  # a pending member sees the image, to decide
    assert image_id not in bob.ids()
    assert image_id in bob.ids(member_status="pending")
    assert image_id in bob.ids(visibility="shared", member_status="all")

    accept = {"status": "accepted"}
    assert alice.http.put(f"/v2/images/{image_id}/members/p2", json=accept).status_code \
        == 403
    response = bob.http.put(f"/v2/images/{image_id}/members/p2", json=accept)
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    assert image_id in bob.ids()
    assert bob.http.put(f"/v2/images/{image_id}/members/p2",
                        json={"status": "bogus"}).status_code == 400

    listed = alice.http.get(f"/v2/images/{image_id}/members").json()
    assert [m["member_id"] for m in listed["members"]] == ["p2"]
    assert listed["schema"] == "/v2/schemas/members"
    assert bob.http.get(f"/v2/images/{image_id}/members/p2").json()["status"] == "accepted"
    assert alice.http.get(f"/v2/images/{image_id}/members/p3").status_code == 404
    assert bob.http.delete(f"/v2/images/{image_id}/members/p2").status_code == 403
    assert alice.http.delete(f"/v2/images/{image_id}/members/p2").status_code == 204
    bob.show(image_id, expected=404)


def test_members_only_for_shared_images(glance):
    image_id = glance["alice"].create(name="p", visibility="private")["id"]
    response = glance["alice"].http.post(f"/v2/images/{image_id}/members",
                                         json={"member": "p2"})
    assert response.status_code == 403
    assert "Only shared images have members." in response.json()["message"]
    assert glance["alice"].http.post(f"/v2/images/{image_id}/members",
                                     json={}).status_code == 400


def test_filters(glance):
    alice = glance["alice"]
    a = alice.create(name="a", disk_format="qcow2", hw_architecture="x86_64",
                     tags=["gold", "linux"])["id"]
    b = alice.create(name="b", disk_format="raw", tags=["gold"])["id"]
    c = alice.create(name="c,d", disk_format="raw")["id"]
    alice.upload(b, b"x")
    assert alice.ids(id=f"in:{a},{b}") == {a, b}
    assert alice.ids(name="a") == {a}
    assert alice.ids(name='in:"c,d",a') == {a, c}
    assert alice.ids(status="active", owner="p1") == {b}
    assert alice.ids(disk_format="raw", owner="p1") == {b, c}
    assert alice.ids(hw_architecture="x86_64") == {a}
    assert alice.ids(tag="gold", owner="p1") == {a, b}
    assert alice.http.get("/v2/images", params=[("tag", "gold"), ("tag", "linux")]
                          ).json()["images"][0]["id"] == a
    for bad in ({"limit": "x"}, {"limit": "-1"}, {"sort_key": "owner"},
                {"sort_dir": "up"}, {"visibility": "everyone"}, {"member_status": "x"},
                {"marker": "00000000-0000-0000-0000-000000000000"},
                {"sort": "name", "sort_key": "id"}):
        response = alice.http.get("/v2/images", params=bad)
        assert response.status_code == 400, bad


def test_sorting_and_pagination_with_next_links(glance):
    alice = glance["alice"]
    made = [alice.create(name=f"img-{i}")["id"] for i in range(5)]
    names = [i["name"] for i in alice.list(owner="p1", sort="name:asc")["images"]]
    assert names == [f"img-{i}" for i in range(5)]
    names = [i["name"] for i in alice.list(owner="p1", sort_key="name",
                                           sort_dir="desc")["images"]]
    assert names == [f"img-{i}" for i in reversed(range(5))]

    seen, page = [], alice.list(owner="p1", limit=2, sort_key="name", sort_dir="asc")
    assert page["first"] == "/v2/images?owner=p1&limit=2&sort_key=name&sort_dir=asc"
    while True:
        seen += [i["id"] for i in page["images"]]
        if "next" not in page:
            break
        response = alice.http.get(page["next"])
        assert response.status_code == 200
        page = response.json()
    assert seen == made
