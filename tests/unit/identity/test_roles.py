"""Implied roles and effective assignments."""

from novalite.identity import bootstrap, resource, roles, users


def test_expand_follows_chains_and_survives_cycles():
    rules = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "x": {"y"}}
    assert roles.expand({"a"}, rules) == {"a", "b", "c"}
    assert roles.expand({"x"}, rules) == {"x", "y"}
    assert roles.expand(set(), rules) == set()


def test_bootstrap_chain_gives_admin_every_role(db):
    bootstrap.bootstrap("http://cloud.test")
    admin = users.get_user_by_name("admin", "default")
    project = resource.get_project_by_name("admin", "default")
    names = [r["name"] for r in roles.effective_roles(admin["id"], project["id"])]
    assert names == ["admin", "manager", "member", "reader"]
    direct = roles.list_assignments(user_id=admin["id"])
    effective = roles.list_assignments(user_id=admin["id"], effective=True)
    assert len(direct) == 1 and len(effective) == 4
    reader = roles.list_roles(name="reader")[0]["id"]
    assert [a["role_id"] for a in roles.list_assignments(
        user_id=admin["id"], role_id=reader, effective=True)] == [reader]
