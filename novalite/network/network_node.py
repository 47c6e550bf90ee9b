"""The network node: the agents that give real guests their DHCP servers and routers,
run by the all-in-one with the qemu driver or by novalite-network with [datapath]
network_node, on this process's host ([DEFAULT] host)."""

from __future__ import annotations

import os

from novalite.conf import CONF
from novalite.network.agent_loop import SyncLoop
from novalite.network.dhcp_agent import DhcpAgent
from novalite.network.l3_agent import L3Agent


def start() -> list[SyncLoop]:
    """The started agents (stop each to let go: what they made keeps serving)."""
    os.makedirs(CONF.state_path, exist_ok=True)
    agents: list[SyncLoop] = [DhcpAgent(CONF.host, os.path.join(CONF.state_path, "dhcp")),
                              L3Agent(CONF.host, os.path.join(CONF.state_path, "routers"))]
    for agent in agents:
        agent.start()
    return agents
