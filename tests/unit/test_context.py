from novalite import context


def test_to_dict_never_carries_the_token():
    ctx = context.RequestContext(user_id="u", project_id="p", auth_token="secret")
    data = ctx.to_dict()
    assert "auth_token" not in data
    assert data["user_id"] == "u" and data["request_id"].startswith("req-")


def test_from_dict_ignores_fields_it_does_not_know():
    ctx = context.RequestContext.from_dict({"user_id": "u", "from_a_newer_peer": 1})
    assert ctx.user_id == "u"


def test_elevated_adds_admin_without_touching_the_original():
    ctx = context.RequestContext(user_id="u", roles=["member"])
    admin = ctx.elevated()
    assert admin.is_admin and "admin" in admin.roles
    assert not ctx.is_admin and ctx.roles == ["member"]


def test_activate_makes_it_current_until_reset():
    ctx = context.RequestContext()
    token = ctx.activate()
    assert context.current() is ctx
    context.reset(token)
    assert context.current() is None
