"""The default bootable guest (`novalite-tiny`): Debian's cloud kernel, a busybox
initramfs whose init prints a marker on the serial console, and a small qcow2 disk it
mounts. Like a cloud image with cloud-init, it then takes a DHCP lease on eth0 and runs
its metadata's user data; like one with dhcpcd, it takes its IPv6 addresses as its
router's advertisements say: formed from their prefix (SLAAC), or asked of the DHCPv6
server, and reports them too. Built from Debian packages only, once, into a cache
directory; rebuilt when a file is missing or RECIPE changes."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import gzip
import json
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from novalite import affinity
from novalite.conf import CONF
from novalite.virt.qemu import cpio, elf, guest_dhcpcd, guest_kernel

LOG = logging.getLogger(__name__)

# Bump whenever what is built changes (init script, modules, disk content): caches rebuild.
RECIPE = 5
MARKER = "NOVALITE-GUEST-UP"
DISK_MARKER = "NOVALITE-DISK"
POWEROFF_MARKER = "NOVALITE-GUEST-ACPI-POWEROFF"
NET_MARKER = "NOVALITE-NET"
NET6_MARKER = "NOVALITE-NET6"
META_MARKER = "NOVALITE-META"
USERDATA_MARKER = "NOVALITE-USERDATA"
DISK_TEXT = "hello-from-novalite-tiny"
COMMAND_LINE = "console=ttyS0 quiet panic=-1 no_timer_check"
PACKAGES = "qemu-system-x86 qemu-utils busybox-static cpio"
INSTALL_HINT = f"apt-get install -y --no-install-recommends {PACKAGES}"
# The Debian package of each program the build runs (the last three are in every Debian).
TOOL_PACKAGES = {"busybox": "busybox-static", "qemu-img": "qemu-utils",
                 "mkfs.ext4": "e2fsprogs", "apt-get": "apt", "apt-cache": "apt",
                 "dpkg-deb": "dpkg"}

KERNEL, RAMDISK, DISK, STAMP = "vmlinuz", "initrd.img", "disk.qcow2", "recipe.json"

# A disk that is not ext4 (a blank image) just leaves NOVALITE-DISK out.
INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in {modules}; do insmod /lib/modules/$m.ko 2>/dev/null; done
# acpid exits silently without its log and pid directories.
mkdir -p /var/log /var/run; acpid
if [ -b /dev/vda ] && mount -o ro /dev/vda /mnt 2>/dev/null; then
  echo "{disk_marker} $(cat /mnt/hello.txt)"
fi
echo "{marker} uptime=$(cut -d' ' -f1 /proc/uptime) \\
mem_kb=$(grep MemTotal /proc/meminfo | tr -s ' ' | cut -d' ' -f2)"
novalite-net &
novalite-net6 &
while true; do sleep 3600; done
"""
# busybox's udhcpc only runs a script at each DHCP event; Debian ships none with it.
# This one configures what cloud-init's DHCP client would: address, MTU, default route,
# resolver and hostname. A renewal flushes first so a changed address does not pile up;
# IPv4 only: the IPv6 addresses are the kernel's (link-local) and dhcpcd's.
UDHCPC_SCRIPT = """#!/bin/sh
case "$1" in
  deconfig)
    ip -4 addr flush dev "$interface"
    ip link set "$interface" up
    ;;
  bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/$mask" ${broadcast:+broadcast "$broadcast"} dev "$interface"
    [ -n "$mtu" ] && ip link set "$interface" mtu "$mtu"
    for gateway in $router; do
      ip route replace default via "$gateway" dev "$interface"
      break
    done
    {
      [ -n "$domain" ] && echo "search $domain"
      for server in $dns; do echo "nameserver $server"; done
    } > /etc/resolv.conf
    [ -n "$hostname" ] && hostname "$hostname"
    ;;
esac
exit 0
"""
# Run by init in the background, so a slow or absent DHCP server or metadata service
# never delays the boot marker. One NET line always comes (eth0=none when there is no
# NIC or no lease); the metadata lines only when a config drive or the metadata service
# answered. As in cloud-init, a config drive is preferred (it needs no network), under
# either label: vfat tools may write it upper case. udhcpc -n gives up after its ten
# discovers instead of retrying forever; after a lease it goes on in the background and
# renews it. Debian's busybox wget has no timeout of its own (its -T crashes it), hence
# `timeout`. The JSON is one line as Nova writes it; sed reads its two simple fields,
# and an absent one prints nothing.
_NET_BODY = r"""
address=none
ip link set lo up
if [ -e /sys/class/net/eth0 ]; then
  ip link set eth0 up
  udhcpc -i eth0 -s /etc/udhcpc.script -O mtu -t 10 -T 1 -n > /dev/null 2>&1 &&
    address=$(ip -o -4 addr show dev eth0 | sed -n 's/.* inet \([0-9.]*\/[0-9]*\) .*/\1/p')
fi
echo "$NET eth0=${address:-none}"

from_config_drive() {
  drive=$(findfs LABEL=config-2 || findfs LABEL=CONFIG-2) 2> /dev/null || return 1
  mkdir -p /media/config-2
  mount -o ro "$drive" /media/config-2 2> /dev/null || return 1
  cp /media/config-2/openstack/latest/meta_data.json /tmp/meta_data.json 2> /dev/null ||
    return 1
  echo "$META source=config-drive"
  cp /media/config-2/openstack/latest/user_data /tmp/user-data 2> /dev/null
  return 0
}

fetch() {
  timeout 3 wget -q -O "$2" "http://169.254.169.254/openstack/latest/$1" 2> /dev/null ||
    { rm -f "$2"; return 1; }
}

from_metadata_service() {
  [ "$address" != none ] && fetch meta_data.json /tmp/meta_data.json || return 1
  echo "$META source=metadata-service"
  fetch user_data /tmp/user-data
  return 0
}

from_config_drive || from_metadata_service || exit 0
json=$(tr -d '\n' < /tmp/meta_data.json)
name=$(echo "$json" | sed -n 's/.*"hostname": *"\([^"]*\)".*/\1/p')
if [ -n "$name" ]; then
  hostname "$name"
  echo "$META hostname=$name"
fi
key=$(echo "$json" | sed -n 's/.*"public_keys": *{ *"[^"]*": *"\([^"]*\)".*/\1/p')
[ -n "$key" ] && echo "$META key=$(echo "$key" | cut -c1-20)"
if [ "$(head -c 2 /tmp/user-data 2> /dev/null)" = "#!" ]; then
  chmod +x /tmp/user-data
  /tmp/user-data > /dev/console 2>&1
  echo "$USERDATA rc=$?"
fi
"""
NET_SCRIPT = (f"#!/bin/sh\nNET={NET_MARKER} META={META_MARKER} "
              f"USERDATA={USERDATA_MARKER}\n{_NET_BODY}")
# dhcpcd for IPv6 only: IPv4 stays udhcpc's. It solicits the router's advertisements
# (and so turns off the kernel's own handling of them), forms addresses from their
# prefixes as the kernel would (EUI-64, the address IPAM gave the port), and asks DHCPv6
# when their M or O flag says so. A DUID-LL carries the MAC, by which dnsmasq finds the
# port's address at once instead of once its neighbour table learnt it. No hook script:
# the resolver and the hostname stay udhcpc's and the metadata's.
DHCPCD_CONF = """ipv6only
slaac hwaddr
duid ll
script ""
"""
# Run by init in the background beside novalite-net: dhcpcd, in the background too, sets
# the guest's IPv6 addresses, once eth0 is up and its link-local address passed
# duplicate address detection: a SLAAC one with the advertisement's prefix length, a
# DHCPv6 one as a /128. This prints them when the first is usable, as
# "eth0=<address>/<length>[,...]", or eth0=none when none came within 30 s (no NIC, no
# IPv6 subnet).
_NET6_BODY = r"""
found=
i=0
[ -e /sys/class/net/eth0 ] && "$DHCPCD" -b eth0 > /dev/null 2>&1
while [ -e /sys/class/net/eth0 ] && [ $i -lt 30 ]; do
  found=$(ip -o -6 addr show dev eth0 scope global | grep -v tentative |
    sed -n 's/.* inet6 \([0-9a-f:]*\/[0-9]*\) .*/\1/p')
  [ -n "$found" ] && break
  i=$((i + 1))
  sleep 1
done
found=$(echo $found | tr ' ' ',')
echo "$NET6 eth0=${found:-none}"
"""
NET6_SCRIPT = f"#!/bin/sh\nNET6={NET6_MARKER} DHCPCD=/{guest_dhcpcd.PROGRAM}\n{_NET6_BODY}"
# acpid runs it with stdout on /dev/null (it daemonizes), hence the explicit console.
POWER_BUTTON = f"#!/bin/sh\necho {POWEROFF_MARKER} > /dev/console\npoweroff -f\n"


class GuestImageError(RuntimeError):
    """The guest could not be built; the message says what to install or fix."""


@dataclasses.dataclass(frozen=True)
class GuestImage:
    directory: Path
    kernel_package: str

    @property
    def kernel(self) -> Path:
        return self.directory / KERNEL

    @property
    def ramdisk(self) -> Path:
        return self.directory / RAMDISK

    @property
    def disk(self) -> Path:
        return self.directory / DISK


def default_directory() -> Path:
    configured = CONF.qemu.guest_image_dir
    return Path(configured or "~/.cache/novalite/guest-image").expanduser()


def ensure_built(directory: str | None = None) -> GuestImage:
    """The guest in `directory` (default [qemu] guest_image_dir), built first unless a
    build of this RECIPE is there. Processes building at once wait for each other."""
    target = Path(directory).expanduser() if directory else default_directory()
    target.mkdir(parents=True, exist_ok=True)
    with _locked(target / ".lock"):
        cached = load(target)
        if cached is not None:
            return cached
        for stale in target.glob(".build-*"):  # a build killed midway; none runs now
            shutil.rmtree(stale, ignore_errors=True)
        return _build(target)


def load(directory: Path) -> GuestImage | None:
    """The complete build of this RECIPE in `directory`, or None."""
    try:
        stamp = json.loads((directory / STAMP).read_text())
    except (OSError, ValueError):
        return None
    image = GuestImage(directory, stamp.get("kernel_package", ""))
    complete = all(p.is_file() for p in (image.kernel, image.ramdisk, image.disk))
    return image if stamp.get("recipe") == RECIPE and complete else None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build(target: Path) -> GuestImage:
    tools = _tools()
    started = time.monotonic()
    LOG.info("Building the default guest image in %s (once, then cached)", target)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=target) as tmp:
        work = Path(tmp)
        LOG.info("Guest image 1/4: downloading the kernel (%s)", guest_kernel.META_PACKAGE)
        try:
            kernel = guest_kernel.fetch()
        except guest_kernel.KernelError as exc:
            raise GuestImageError(f"Building the guest image: {exc}") from None
        (work / KERNEL).write_bytes(kernel.vmlinuz)
        LOG.info("Guest image 2/4: downloading the DHCPv6 client (%s, %s)",
                 guest_dhcpcd.PACKAGE, ", ".join(guest_dhcpcd.LIBRARY_PACKAGES))
        try:
            dhcp_client = guest_dhcpcd.fetch()
        except guest_dhcpcd.ClientError as exc:
            raise GuestImageError(f"Building the guest image: {exc}") from None
        LOG.info("Guest image 3/4: busybox initramfs with %s's %d modules", kernel.package,
                 len(kernel.modules))
        (work / RAMDISK).write_bytes(initramfs(Path(tools["busybox"]).read_bytes(),
                                               kernel.modules, dhcp_client))
        LOG.info("Guest image 4/4: ext4 disk as qcow2")
        _make_disk(work, tools)
        for name in (KERNEL, RAMDISK, DISK):
            os.replace(work / name, target / name)
        stamp = {"recipe": RECIPE, "kernel_package": kernel.package}
        (target / STAMP).write_text(json.dumps(stamp) + "\n")
    LOG.info("Guest image ready in %.1f s: %s", time.monotonic() - started, target)
    return GuestImage(target, kernel.package)


def _tools() -> dict[str, str]:
    """Every program the build runs, found on PATH, else one error naming them all."""
    names = {"busybox": "busybox", "qemu-img": CONF.qemu.qemu_img, "mkfs.ext4": "mkfs.ext4",
             "apt-get": "apt-get", "apt-cache": "apt-cache", "dpkg-deb": "dpkg-deb"}
    found = {key: shutil.which(name) for key, name in names.items()}
    missing = [f"{names[key]} ({TOOL_PACKAGES[key]})" for key, path in found.items()
               if path is None]
    if missing:
        raise GuestImageError(f"Building the guest image needs {', '.join(missing)}: "
                              f"{INSTALL_HINT}")
    if not is_static(Path(found["busybox"])):
        raise GuestImageError(f"{found['busybox']} is dynamically linked and cannot run "
                              f"alone in an initramfs: {INSTALL_HINT}")
    return found


def is_static(path: Path) -> bool:
    """Whether an ELF executable has no program interpreter (PT_INTERP)."""
    try:
        return elf.interpreter(path.read_bytes()) is None
    except elf.ElfError:
        return False


def initramfs(busybox: bytes, modules: dict[str, bytes],
              dhcp_client: list[cpio.Entry]) -> bytes:
    """The gzip'd newc archive: busybox, the modules (loaded in dict order), the DHCPv6
    client with its libraries, init and the scripts it runs."""
    init = INIT.format(modules=" ".join(modules), marker=MARKER, disk_marker=DISK_MARKER)
    # dhcpcd makes its run and state directories, but not their parents; the kernel
    # makes no directory a member's path goes through.
    directories = ["bin", "dev", "etc", "etc/acpi", "etc/acpi/PWRF", "lib", "lib/modules",
                   "mnt", "proc", "sys", "tmp", "run", "run/dhcpcd", "var", "var/lib",
                   "var/lib/dhcpcd"]
    for entry in dhcp_client:
        parents = Path(entry.name).parents
        directories += [str(p) for p in reversed(parents[:-1]) if str(p) not in directories]
    entries = [cpio.directory(d) for d in directories]
    entries += [
        # The kernel opens it before init runs, so init has a console to print to.
        cpio.char_device("dev/console", 5, 1),
        cpio.regular("bin/busybox", busybox, 0o755),
        cpio.regular("init", init.encode(), 0o755),
        cpio.regular("etc/acpi/PWRF/00000080", POWER_BUTTON.encode(), 0o755),
        cpio.regular("bin/novalite-net", NET_SCRIPT.encode(), 0o755),
        cpio.regular("bin/novalite-net6", NET6_SCRIPT.encode(), 0o755),
        cpio.regular("etc/udhcpc.script", UDHCPC_SCRIPT.encode(), 0o755),
        cpio.regular("etc/dhcpcd.conf", DHCPCD_CONF.encode()),
        *dhcp_client,
    ]
    entries += [cpio.regular(f"lib/modules/{name}.ko", ko) for name, ko in modules.items()]
    return gzip.compress(cpio.archive(entries), compresslevel=1, mtime=0)


def _make_disk(work: Path, tools: dict[str, str]) -> None:
    content = work / "disk"
    content.mkdir()
    (content / "hello.txt").write_text(DISK_TEXT + "\n")
    raw = work / "disk.raw"
    _run([tools["mkfs.ext4"], "-q", "-F", "-d", str(content), str(raw), "16M"])
    _run([tools["qemu-img"], "convert", "-f", "raw", "-O", "qcow2", str(raw),
          str(work / DISK)])


def _run(args: list[str]) -> None:
    try:
        with affinity.unpinned():
            subprocess.run(args, check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        raise GuestImageError(f"{' '.join(args)} failed: {exc.stderr.strip()}") from None
