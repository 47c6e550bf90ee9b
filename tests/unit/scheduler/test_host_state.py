"""HostState built without __init__ (the host manager's bulk path) is the same state."""

from novalite.scheduler.host_state import HostState


def test_an_unbound_state_equals_one_built_by_init_and_shares_no_defaults():
    built = HostState(host="a", nodename="a", uuid="u", free_ram_mb=7)
    fast = HostState.unbound(host="a", nodename="a", uuid="u", free_ram_mb=7)
    other = HostState.unbound(host="b", nodename="b", uuid="v")
    assert fast == built
    assert fast.stats is not other.stats and fast.instances is not other.instances
    assert fast.metrics is None and fast.pci_stats == ()  # class defaults, as __init__
