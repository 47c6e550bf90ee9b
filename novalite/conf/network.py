"""Network service options, by Neutron's names: [DEFAULT] base_mac; [ml2] and its type
drivers' groups for how tenant networks are carried (part 2's datapath reads the same
segmentation ids); [QUOTAS] for per-project limits (-1: unlimited); [nova] for the
client that tells compute of changes (os-server-external-events)."""

from oslo_config import cfg

from novalite.conf import service_client

default_opts = [
    cfg.StrOpt("base_mac", default="fa:16:3e:00:00:00",
               help="The base MAC of ports: octets other than 00 are kept, the 00 ones "
               "are random."),
    cfg.HostAddressOpt("bind_host", default="0.0.0.0",
                       help="Where novalite-network listens (Neutron's option)."),
    cfg.PortOpt("bind_port", default=9696, help="novalite-network's port (Neutron's)."),
    cfg.IntOpt("global_physnet_mtu", default=1500, min=68,
               help="MTU of the underlying physical network; a VXLAN network's is 50 less "
               "(its IP and VXLAN headers)."),
]

ml2_group = cfg.OptGroup("ml2", title="Modular layer 2 options")
ml2_opts = [
    cfg.ListOpt("type_drivers", default=["flat", "vlan", "vxlan"],
                help="Network types an admin may create."),
    cfg.ListOpt("tenant_network_types", default=["vxlan"],
                help="Network types of project networks, tried in order."),
    cfg.IntOpt("path_mtu", default=0, min=0,
               help="MTU of the path tunnels (VXLAN) cross, when it differs from "
               "global_physnet_mtu; 0: the same."),
    cfg.DictOpt("physical_network_mtus", default={},
                help="<physical_network>:<mtu> for flat and VLAN networks on a physical "
                "network whose MTU differs from global_physnet_mtu."),
]
vxlan_group = cfg.OptGroup("ml2_type_vxlan", title="VXLAN type driver options")
vxlan_opts = [
    cfg.ListOpt("vni_ranges", default=["1:1000"],
                help="<vni_min>:<vni_max> ranges of VXLAN VNIs for project networks."),
]
vlan_group = cfg.OptGroup("ml2_type_vlan", title="VLAN type driver options")
vlan_opts = [
    cfg.ListOpt("network_vlan_ranges", default=["physnet1"],
                help="<physical_network>[:<vlan_min>:<vlan_max>]: the physical networks "
                "VLAN networks may be on, and the tags project networks take from each "
                "(all of 1-4094 when no range is given). Neutron's default is empty (no "
                "VLAN networks); novalite's offers devstack's physnet1."),
]
flat_group = cfg.OptGroup("ml2_type_flat", title="Flat type driver options")
flat_opts = [
    cfg.ListOpt("flat_networks", default=["*"],
                help="Physical networks flat networks may be created on; '*' for any."),
]

quotas_group = cfg.OptGroup("QUOTAS", title="Network quota options")
quotas_opts = [
    cfg.IntOpt("quota_network", default=100, min=-1, help="Networks per project."),
    cfg.IntOpt("quota_subnet", default=100, min=-1, help="Subnets per project."),
    cfg.IntOpt("quota_port", default=500, min=-1, help="Ports per project."),
    cfg.IntOpt("quota_router", default=10, min=-1, help="Routers per project."),
    cfg.IntOpt("quota_floatingip", default=50, min=-1, help="Floating IPs per project."),
    cfg.IntOpt("quota_security_group", default=10, min=-1,
               help="Security groups per project."),
    cfg.IntOpt("quota_security_group_rule", default=100, min=-1,
               help="Security group rules per project."),
    cfg.IntOpt("quota_subnetpool", default=-1, min=-1, help="Subnet pools per project."),
]

nova_group = cfg.OptGroup("nova", title="Compute client options of the network service")
NOVA_ADAPTER_OPTS = service_client.adapter_opts("compute")

GROUPS = ((ml2_group, ml2_opts), (vxlan_group, vxlan_opts), (vlan_group, vlan_opts),
          (flat_group, flat_opts), (quotas_group, quotas_opts))


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)
    service_client.register(conf, nova_group, NOVA_ADAPTER_OPTS)
    for group, opts in GROUPS:
        conf.register_group(group)
        conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return {"DEFAULT": default_opts, **dict(GROUPS),
            nova_group: service_client.listed(NOVA_ADAPTER_OPTS)}
