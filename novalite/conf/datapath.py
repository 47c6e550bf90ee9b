"""Options of the Linux datapath real guests are wired into (novalite.datapath): Neutron's
Linux bridge agent names where it has them ([vxlan] local_ip, vxlan_group; [agent]
polling_interval; [DEFAULT] dhcp_lease_duration), and [datapath] for what only novalite
has: the prefix that keeps one cloud's namespaces apart from another's on one machine,
and whether this process is the network node (DHCP and routers)."""

from oslo_config import cfg

datapath_group = cfg.OptGroup("datapath", title="Linux datapath of real guests")
datapath_opts = [
    cfg.StrOpt("namespace_prefix", default="",
               help="Prefix of the network namespaces of this cloud's datapath. Empty: "
               "derived from [database] connection, so that the services of one cloud "
               "share their underlay and two clouds on one machine never meet."),
    cfg.BoolOpt("network_node", default=False,
                help="Whether this network service process is the network node: serves "
                "DHCP (dnsmasq in a qdhcp namespace per network) and routers (a qrouter "
                "namespace each, with SNAT and floating IPs). The all-in-one is one with "
                "the qemu driver. One process per cloud should be."),
    cfg.StrOpt("underlay_cidr", default="100.64.0.0/16",
               help="Addresses of the hosts on the underlay that carries VXLAN; a host's "
               "address is derived from its name unless [vxlan] local_ip is set."),
]

vxlan_group = cfg.OptGroup("vxlan", title="VXLAN options (Neutron's Linux bridge agent)")
vxlan_opts = [
    cfg.StrOpt("local_ip", default="",
               help="This host's address on the underlay (VXLAN tunnel endpoint)."),
    cfg.StrOpt("vxlan_group", default="224.0.0.1",
               help="Multicast group the VXLAN devices flood unknown and broadcast "
               "traffic to, so hosts find each other without a list of peers."),
]

agent_group = cfg.OptGroup("agent", title="Agent options")
agent_opts = [
    cfg.FloatOpt("polling_interval", default=2.0, min=0.1,
                 help="Seconds between the DHCP agent's full resyncs with the database "
                 "(changes made in its own process apply at once)."),
]

default_opts = [
    cfg.IntOpt("dhcp_lease_duration", default=86400, min=-1,
               help="DHCP lease time in seconds; -1: infinite (Neutron's option)."),
    # the metadata agent's, by Neutron's names
    cfg.HostAddressOpt("nova_metadata_host", default="127.0.0.1",
                       help="Where the metadata API is that guests' requests to "
                       "169.254.169.254 are proxied to (novalite serves it under "
                       "/metadata on its API's port)."),
    cfg.PortOpt("nova_metadata_port", default=8774, help="Port of the metadata API."),
    cfg.StrOpt("nova_metadata_protocol", default="http", choices=["http", "https"],
               help="Protocol of the metadata API."),
    cfg.StrOpt("metadata_proxy_shared_secret", default="", secret=True,
               help="Secret the proxy signs instance ids with; the same as the compute "
               "API's [neutron] metadata_proxy_shared_secret."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    for group, opts in ((datapath_group, datapath_opts), (vxlan_group, vxlan_opts),
                        (agent_group, agent_opts)):
        conf.register_group(group)
        conf.register_opts(opts, group=group)
    conf.register_opts(default_opts)


def list_opts() -> dict:
    return {datapath_group: datapath_opts, vxlan_group: vxlan_opts, agent_group: agent_opts,
            "DEFAULT": default_opts}
