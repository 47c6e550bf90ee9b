from novalite.objects import network_info
from novalite.objects.network_info import VIF, Network


def _vif(port: str, tag: str | None = None) -> VIF:
    return VIF(id=port, address=f"mac-{port}", tag=tag,
               network=Network(id="n", label="n", bridge="b"))


def test_a_vifs_tag_survives_the_cache():
    (back,) = network_info.from_json(network_info.to_json([_vif("p1", "data")]))
    assert back.tag == "data"
    (old,) = network_info.from_json([{**network_info.vif_to_json(_vif("p1")), "tag": None}])
    assert old.tag is None


def test_a_refresh_from_the_ports_keeps_the_tags_the_cloud_kept():
    fresh = [_vif("p1"), _vif("p2"), _vif("p3")]
    kept = network_info.with_tags(fresh, {"p1": "a", "p3": "c", "gone": "x"})
    assert [v.tag for v in kept] == ["a", None, "c"]


def test_a_refresh_keeps_the_servers_order_of_its_ports():
    before = [_vif("p2"), _vif("p1")]
    listed = [_vif("p1"), _vif("p3"), _vif("p2")]
    assert [v.id for v in network_info.in_order(listed, before)] == ["p2", "p1", "p3"]
