"""The Linux datapath real guests are wired into, in the shape of Neutron's Linux bridge
agent, built entirely inside network namespaces this cloud creates and owns (the
machine's own interfaces, routes and firewall are never touched):

- `underlay`: one namespace per cloud holding a bridge, the "wire" between hosts; each
  host (a compute, or the network node serving DHCP) is a namespace with a veth on it and
  an address derived from its name;
- `bridges`: per host and network, a bridge `brq<network-id[:11]>` with the network's
  VXLAN device (VNI = segmentation id, flooding to a multicast group, so hosts need no
  list of peers), and the guests' tap devices (`tap<port-id[:11]>`) on it;
- `taps`: the tap's file descriptor QEMU is given, opened inside the host's namespace;
- `dhcp`: per network, a `qdhcp` namespace on the bridge running dnsmasq with a hosts
  file written from the ports (DHCP, and DHCPv6 for the IPv6 subnets in a DHCPv6 mode);
- `routers`: per router, a `qrouter` namespace with a veth on each of its networks'
  bridges, forwarding and NAT; `ra`: its router advertisements (a dnsmasq that only
  advertises) for the subnets with an `ipv6_ra_mode`;
- `daemons`: those dnsmasq processes, found again by their pid files;
- `firewall`: the security groups as nftables rules in each host's namespace.

Everything here is idempotent and can be redone from scratch after a crash: a name says
what it is for, so what exists is compared with what should, never remembered."""
