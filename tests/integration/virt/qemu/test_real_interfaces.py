"""An interface attached to a running QEMU guest reaches it: the guest's user data waits
for eth1, which appears with the port's MAC once os-interface hot-plugged it, gets the
port's fixed IP from the second network's DHCP server and pings that server. The guest
then live-migrates with it (the destination makes the same machine: the NIC on the
root port it was plugged into) and pings again from there; the detach takes the device
out of the guest (its kernel sees eth1 go, QEMU has no such device any more) and the
port is unbound and released. A NIC the guest was made with leaves it the same way
while it runs (it has a root port of its own)."""

from __future__ import annotations

import base64

import httpx

from novalite.image import db as images
from novalite.virt.qemu import nics
from novalite.virt.qemu.config import GuestPaths
from novalite.virt.qemu.qmp import QMPClient
from tests.integration.virt.qemu.test_real_guests import NANO, wait_console, wait_settled

ADMIN = {"X-Auth-Token": "admin:demo-project"}


# The second network is served by DHCP once a port on it is bound: the guest learns
# its server's address from the lease (udhcpc's $serverid) and pings it.
SCRIPT = "\n".join([
    "#!/bin/sh",
    "printf '#!/bin/sh\\n[ -n \"$serverid\" ] && echo $serverid > /tmp/server\\n"
    "exec /etc/udhcpc.script \"$@\"\\n' > /tmp/eth1.script",
    "chmod +x /tmp/eth1.script",
    "while [ ! -e /sys/class/net/eth1 ]; do sleep 1; done",
    'echo "HOTPLUG-MAC $(cat /sys/class/net/eth1/address)"',
    "ip link set eth1 up",
    "udhcpc -i eth1 -s /tmp/eth1.script -t 10 -T 1 -n > /dev/null 2>&1",
    "echo \"HOTPLUG-ADDR $(ip -o -4 addr show dev eth1 | "
    "sed -n 's/.* inet \\([0-9.]*\\)\\/.*/\\1/p')\"",
    'ping -c 3 -W 5 "$(cat /tmp/server)" > /dev/null && echo "HOTPLUG-PING $(cat /tmp/server)"',
    # after the live migration (the test touches the marker file through nothing: the
    # guest pings until eth1 goes, and says so each time it gets an answer again)
    'while [ -e /sys/class/net/eth1 ]; do',
    '  ping -c 1 -W 1 "$(cat /tmp/server)" > /dev/null && echo "HOTPLUG-AGAIN"; sleep 1',
    "done",
    "echo HOTPLUG-GONE", ""])


def _pci_devices(server_id: str, instances_dir: str) -> list[str]:
    with QMPClient(GuestPaths(f"{instances_dir}/{server_id}").qmp) as client:
        buses = client.execute("query-pci")
    return [device.get("qdev_id", "") for bus in buses for device in bus["devices"]
            for device in [device, *device.get("pci_bridge", {}).get("devices", [])]]


def test_a_hot_plugged_port_gets_its_address_in_the_guest_and_leaves_it(two_qemu_hosts):
    cloud = two_qemu_hosts
    net = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                       headers=ADMIN)
    private, = net.get("/networks", params={"name": "private"}).json()["networks"]
    second = net.post("/networks", json={"network": {"name": "second"}}).json()["network"]
    subnet = net.post("/subnets", json={"subnet": {
        "network_id": second["id"], "cidr": "10.77.0.0/24", "ip_version": 4,
        "gateway_ip": None}}).json()["subnet"]
    port = net.post("/ports", json={"port": {"network_id": second["id"], "fixed_ips": [
        {"subnet_id": subnet["id"], "ip_address": "10.77.0.50"}]}}).json()["port"]

    made = cloud.api.post("/servers", json={"server": {
        "name": "hotplug", "imageRef": images.DEFAULT_IMAGE_ID, "flavorRef": NANO,
        "networks": [{"uuid": private["id"]}], "config_drive": True,
        "user_data": base64.b64encode(SCRIPT.encode()).decode()}})
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, "NOVALITE-NET eth0=")

    attached = cloud.api.post(f"/servers/{server_id}/os-interface",
                              json={"interfaceAttachment": {"port_id": port["id"]}})
    assert attached.status_code == 200, attached.text
    # whole lines waited for: the console may be read halfway through one
    out = wait_console(cloud, server_id, "HOTPLUG-ADDR 10.77.0.50")
    assert f"HOTPLUG-MAC {port['mac_address']}" in out, out
    dhcp, = net.get("/ports", params={"network_id": second["id"],
                                      "device_owner": "network:dhcp"}).json()["ports"]
    wait_console(cloud, server_id, f"HOTPLUG-PING {dhcp['fixed_ips'][0]['ip_address']}")
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    device = nics.device_id(port["id"])
    assert device in _pci_devices(server_id, cloud.compute(source).driver._root())

    moved = cloud.api.post(f"/servers/{server_id}/action", json={
        "os-migrateLive": {"host": None, "block_migration": "auto"}},
        headers={"X-OpenStack-Nova-API-Version": "2.25"})
    assert moved.status_code == 202, moved.text
    dest = cloud.wait(lambda: (s := cloud.server(server_id))["OS-EXT-SRV-ATTR:host"] != source
                      and s["status"] == "ACTIVE" and s["OS-EXT-STS:task_state"] is None
                      and s["OS-EXT-SRV-ATTR:host"], timeout=120)
    instances_dir = cloud.compute(dest).driver._root()
    assert device in _pci_devices(server_id, instances_dir)
    wait_console(cloud, server_id, "HOTPLUG-AGAIN")  # on the new host's console

    gone = cloud.api.delete(f"/servers/{server_id}/os-interface/{port['id']}")
    assert gone.status_code == 202, gone.text
    wait_console(cloud, server_id, "HOTPLUG-GONE")
    cloud.settle()
    assert device not in _pci_devices(server_id, instances_dir)
    kept = cloud.wait(lambda: (p := net.get(f"/ports/{port['id']}").json()["port"])[
        "device_id"] == "" and p)
    assert kept["binding:host_id"] == ""


BOOT_NIC_SCRIPT = "\n".join([
    "#!/bin/sh",
    'echo "BOOTNIC-MAC $(cat /sys/class/net/eth0/address)"',
    "while [ -e /sys/class/net/eth0 ]; do sleep 1; done",
    "echo BOOTNIC-GONE", ""])


def test_a_nic_the_guest_was_made_with_leaves_it_while_it_runs(two_qemu_hosts):
    cloud = two_qemu_hosts
    net = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                       headers=ADMIN)
    private, = net.get("/networks", params={"name": "private"}).json()["networks"]
    made = cloud.api.post("/servers", json={"server": {
        "name": "bootnic", "imageRef": images.DEFAULT_IMAGE_ID, "flavorRef": NANO,
        "networks": [{"uuid": private["id"]}], "config_drive": True,
        "user_data": base64.b64encode(BOOT_NIC_SCRIPT.encode()).decode()}})
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    wait_settled(cloud, server_id, "ACTIVE", 1)
    port, = net.get("/ports", params={"device_id": server_id}).json()["ports"]
    # the whole line: the serial console is read while the guest may still be writing it
    out = wait_console(cloud, server_id, f"BOOTNIC-MAC {port['mac_address']}")
    assert f"BOOTNIC-MAC {port['mac_address']}" in out, out
    instances_dir = cloud.compute(cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
                                  ).driver._root()
    assert nics.device_id(port["id"]) in _pci_devices(server_id, instances_dir)

    gone = cloud.api.delete(f"/servers/{server_id}/os-interface/{port['id']}")
    assert gone.status_code == 202, gone.text
    wait_console(cloud, server_id, "BOOTNIC-GONE")
    cloud.settle()
    assert nics.device_id(port["id"]) not in _pci_devices(server_id, instances_dir)
    assert cloud.api.get(f"/servers/{server_id}/os-interface").json()[
        "interfaceAttachments"] == []
    assert net.get(f"/ports/{port['id']}").status_code == 404  # Nova made it: deleted
    assert cloud.server(server_id)["status"] == "ACTIVE"
