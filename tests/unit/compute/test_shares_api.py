import pytest

from novalite import exception
from novalite.compute import shares_api
from novalite.context import get_admin_context
from tests import builders

VIRTIO_FS, FILE = shares_api.VIRTIO_FS, shares_api.MEM_BACKING_FILE


class _Placement:
    def __init__(self, traits: dict[str, set[str]]) -> None:
        self.traits = traits

    def get_provider_traits(self, ctx, rp_uuid: str) -> set[str]:
        return self.traits[rp_uuid]


@pytest.fixture
def host(monkeypatch):
    """Two nodes on host1: the instance's traits are its own node's."""
    nodes = [builders.node("host1", hypervisor_hostname=n, uuid=n) for n in ("n1", "n2")]
    monkeypatch.setattr(shares_api.compute_nodes, "compute_node_get_by_host",
                        lambda host: nodes if host == "host1" else [])

    def with_traits(**traits: set[str]) -> None:
        monkeypatch.setattr(shares_api.placement_client, "report_client",
                            lambda: _Placement({"n1": set(), "n2": set(), **traits}))
    return with_traits


def _supported(node: str = "n2", **flavor) -> bool:
    instance = builders.instance(host="host1", node=node, vm_state="stopped",
                                 flavor=builders.flavor(**flavor))
    try:
        shares_api.check_supported(get_admin_context(), instance)
    except exception.ForbiddenSharesNotConfiguredCorrectly:
        return False
    return True


def test_virtio_fs_and_file_backed_memory_or_huge_pages_are_needed(host):
    host(n2={VIRTIO_FS, FILE})
    assert _supported() and not _supported(node="n1")
    host(n2={VIRTIO_FS})
    assert not _supported()
    assert _supported(extra_specs={"hw:mem_page_size": "large"})
    host(n2={FILE})
    assert not _supported(extra_specs={"hw:mem_page_size": "large"})


def test_an_instance_on_no_known_node_is_not_supported(host):
    host(n1={VIRTIO_FS, FILE}, n2={VIRTIO_FS, FILE})
    assert _supported(node="gone")  # Nova falls back to the host's first node
    orphan = builders.instance(host=None, vm_state="stopped")
    with pytest.raises(exception.ForbiddenSharesNotConfiguredCorrectly):
        shares_api.check_supported(get_admin_context(), orphan)


@pytest.mark.parametrize(("action", "allowed"), [
    (shares_api.ATTACH, {"stopped"}), (shares_api.DETACH, {"stopped", "error"})])
def test_the_vm_states_nova_allows(action, allowed):
    for state in ("active", "stopped", "error", "paused", "shelved_offloaded"):
        instance = builders.instance(vm_state=state, task_state="powering-on")
        try:
            shares_api.check_state(instance, action)
        except exception.InstanceInvalidState as exc:
            assert state not in allowed
            assert exc.format_message() == (
                f"Cannot '{action}' instance {instance.uuid} while it is in vm_state {state}")
        else:
            assert state in allowed
