"""Interface attach and detach on the compute (InterfaceSteps in the manager), with the
fake driver, a network API and a conductor that record what they are told; and the
RPC client's versions and the API's state checks."""

import pytest

from novalite import exception
from novalite.compute.interfaces_api import InterfaceAttachAPI, InterfaceAttachNotAvailable
from novalite.compute.manager import ComputeManager
from novalite.compute.rpcapi import ComputeAPI
from novalite.context import RequestContext, get_admin_context
from novalite.objects import states
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF, Network

CTX = get_admin_context()


def _vif(port_id: str, mac: str, preserve: bool = False) -> VIF:
    return VIF(id=port_id, address=mac, preserve_on_delete=preserve,
               network=Network(id="n", label="n", bridge="b"))


class Network_:
    def __init__(self):
        self.ports = [_vif("p1", "m1")]
        self.calls = []

    def bind_port(self, ctx, port_id, host, zone):
        self.calls.append(("bind", port_id, host))
        self.ports.append(_vif(port_id, "m2"))

    def unbind_port(self, ctx, port_id):
        self.calls.append(("unbind", port_id))

    def deallocate_port(self, ctx, port_id, preserve):
        self.calls.append(("deallocate", port_id, preserve))
        self.ports = [p for p in self.ports if p.id != port_id]

    def get_instance_nw_info(self, ctx, instance_uuid, preserve):
        return [_vif(p.id, p.address, p.id in preserve) for p in self.ports]


class Conductor:
    def __init__(self):
        self.caches, self.events, self.faults = [], [], []

    def instance_info_cache_update(self, ctx, instance_uuid, network_info):
        self.caches.append([vif.id for vif in network_info])

    def action_event_start(self, ctx, instance_uuid, event, host):
        pass

    def action_event_finish(self, ctx, instance_uuid, event, result, traceback=None):
        self.events.append((event, result))

    def instance_fault_create(self, ctx, instance_uuid, code, message, details, host):
        self.faults.append(message)

    def instance_update(self, ctx, instance_uuid, values, **kwargs):
        raise AssertionError("an interface action ends no task state")


@pytest.fixture
def manager(conf):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    manager.conductor = Conductor()
    manager.network_api = Network_()
    yield manager
    manager.cleanup_host()


def _instance() -> Instance:
    return Instance(uuid="i-1", network_info=[_vif("p1", "m1")])


def test_an_attach_binds_plugs_and_caches_the_port(manager):
    instance = _instance()
    manager.driver.spawn(CTX, instance, None)
    manager.attach_interface(CTX, instance, "p2", "tagged", True)
    assert manager.network_api.calls == [("bind", "p2", "h1")]
    assert manager.driver.nics["i-1"] == {"p2": 0}
    assert manager.conductor.caches == [["p1", "p2"]]
    assert instance.port_tags() == {"p2": "tagged"}
    assert instance.preserved_ports() == {"p2"}
    assert manager.conductor.events == [("compute_attach_interface", "Success")]


def test_a_failed_plug_unbinds_and_raises_to_the_caller(manager, monkeypatch):
    instance = _instance()
    manager.driver.spawn(CTX, instance, None)
    monkeypatch.setattr(manager.driver, "attach_interface",
                        lambda *a: (_ for _ in ()).throw(RuntimeError("no slot")))
    with pytest.raises(exception.InterfaceAttachFailed):
        manager.attach_interface(CTX, instance, "p2", None, False)
    assert manager.network_api.calls[-1] == ("unbind", "p2")
    assert manager.conductor.caches == []
    assert manager.conductor.events == [("compute_attach_interface", "Error")]
    assert manager.conductor.faults == ["Failed to attach network adapter device to i-1"]


def test_a_driver_without_it_refuses(manager, monkeypatch):
    monkeypatch.setattr(manager.driver, "capabilities", {})
    with pytest.raises(exception.AttachInterfaceNotSupported):
        manager.attach_interface(CTX, _instance(), "p2", None, False)
    assert manager.network_api.calls == []


def test_a_detach_unplugs_then_gives_the_port_back(manager):
    instance = _instance()
    manager.driver.spawn(CTX, instance, None)
    manager.attach_interface(CTX, instance, "p2", None, False)
    manager.detach_interface(CTX, instance, "p2")
    assert manager.driver.nics["i-1"] == {}
    assert manager.network_api.calls[-1] == ("deallocate", "p2", False)
    assert manager.conductor.caches[-1] == ["p1"]


def test_a_detach_the_guest_refuses_keeps_the_port(manager, monkeypatch):
    instance = _instance()
    manager.driver.spawn(CTX, instance, None)
    monkeypatch.setattr(manager.driver, "detach_interface",
                        lambda *a: (_ for _ in ()).throw(
                            exception.DeviceDetachFailed(device="n", reason="late")))
    manager.detach_interface(CTX, instance, "p1")  # a cast: recorded, not raised
    assert manager.network_api.calls == []
    assert manager.conductor.events == [("compute_detach_interface", "Error")]
    assert manager.conductor.faults == ["Failed to detach network adapter device from i-1"]


def test_the_rpc_client_sends_1_25_a_call_and_a_cast(monkeypatch):
    sent = []

    class Prepared:
        def __init__(self, **kw):
            self.kw = kw

        def call(self, ctx, method, **kwargs):
            sent.append(("call", method, self.kw["version"], kwargs["port_id"]))

        def cast(self, ctx, method, **kwargs):
            sent.append(("cast", method, self.kw["version"], kwargs["port_id"]))

    rpc = ComputeAPI()
    monkeypatch.setattr(rpc.client, "prepare", lambda **kw: Prepared(**kw))
    rpc.attach_interface(CTX, "h1", _instance(), "p2", None, False)
    rpc.detach_interface(CTX, "h1", _instance(), "p2")
    assert sent == [("call", "attach_interface", "1.26", "p2"),
                    ("cast", "detach_interface", "1.26", "p2")]


@pytest.mark.parametrize("vm_state", [states.SUSPENDED, states.SHELVED, states.ERROR,
                                      states.RESCUED])
def test_the_api_takes_novas_states_only(conf, vm_state):
    instance = Instance(uuid="i-1", vm_state=vm_state, host="h1", launched_at="x")
    with pytest.raises(exception.InstanceInvalidState):
        InterfaceAttachAPI()._checked(CTX, instance, "attach_interface")
    for allowed in states.ALLOW_ATTACH_INTERFACE:
        instance.vm_state = allowed
        assert InterfaceAttachAPI()._checked(CTX, instance, "attach_interface") == "h1"


def test_the_api_refuses_an_old_compute_and_a_lock(conf):
    instance = Instance(uuid="i-1", vm_state=states.ACTIVE, host="h1", launched_at="x",
                        locked=True)
    with pytest.raises(exception.InstanceIsLocked):
        InterfaceAttachAPI()._checked(RequestContext(user_id="u", project_id="p"),
                                      instance, "attach_interface")
    conf.set_override("compute", "1.24", group="upgrade_levels")
    with pytest.raises(InterfaceAttachNotAvailable):
        InterfaceAttachAPI()._checked(CTX, instance, "detach_interface")

