"""The datapath's wiring cost: how long a port takes to be plugged into its network on a
host (what a compute does before QEMU starts: the host on the underlay, the network's
bridge and VXLAN device, the tap), and how long the DHCP server takes to serve one more
port (hosts file rewritten, dnsmasq reloaded).

Runs as root in namespaces of its own (prefix `nlbench<pid>`), removed at the end: the
machine's own interfaces are never touched. `--ports` taps over `--hosts` hosts on
`--networks` networks, round robin, so first plugs (bridge and tunnel made) and later
ones (tap only) both count. Target ([datapath] in targets.toml): wiring p50 <= 200 ms.

The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
import targets  # noqa: E402
from boot_storm import percentile  # noqa: E402

from novalite.conf import CONF  # noqa: E402
from novalite.datapath import bridges, dhcp, teardown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ports", type=int, default=60)
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--networks", type=int, default=3)
    args = parser.parse_args()
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("namespace_prefix", f"nlbench{os.getpid()}", group="datapath")
    state = tempfile.mkdtemp(prefix="novalite-datapath-bench-")
    segments = [bridges.Segment(str(uuid.uuid4()), "vxlan", 100 + i, None, 1450)
                for i in range(args.networks)]
    server = dhcp.DhcpServer("network", state)
    plugs: list[float] = []
    reloads: list[float] = []
    served: dict[str, list[dhcp.DhcpHost]] = {s.network_id: [] for s in segments}
    try:
        for i in range(args.ports):
            segment, host = segments[i % len(segments)], f"compute{i % args.hosts}"
            mac = f"fa:16:3e:00:{i // 256:02x}:{i % 256:02x}"
            started = time.perf_counter()
            bridges.plug_tap(host, segment, str(uuid.uuid4()), mac="fe" + mac[2:])
            plugs.append(time.perf_counter() - started)
            served[segment.network_id].append(dhcp.DhcpHost(mac, f"10.0.{i // 200}.{i % 200 + 3}"))
            network = dhcp.DhcpNetwork(segment, f"dhcp-{segment.network_id}",
                                       "fa:16:3e:ff:ff:02", ("10.0.255.2/16",),
                                       (dhcp.DhcpSubnet("s", "10.0.0.0/16", "10.0.0.1"),),
                                       tuple(served[segment.network_id]))
            started = time.perf_counter()
            server.ensure(network)
            reloads.append(time.perf_counter() - started)
    finally:
        teardown.remove_all()
    target = targets.load("datapath")["wiring_p50_ms"]
    result = {
        "ports": args.ports, "hosts": args.hosts, "networks": args.networks,
        "wiring_ms": {"p50": round(statistics.median(plugs) * 1000, 1),
                      "p95": round(percentile(plugs, 95) * 1000, 1),
                      "max": round(max(plugs) * 1000, 1)},
        "dhcp_update_ms": {"p50": round(statistics.median(reloads) * 1000, 1),
                           "p95": round(percentile(reloads, 95) * 1000, 1)},
        "target_wiring_p50_ms": target,
    }
    result["met"] = result["wiring_ms"]["p50"] <= target
    print(f"wiring a port: p50 {result['wiring_ms']['p50']} ms, p95 "
          f"{result['wiring_ms']['p95']} ms (target p50 <= {target} ms); DHCP update p50 "
          f"{result['dhcp_update_ms']['p50']} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
