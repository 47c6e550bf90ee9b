import gzip
import json
import posixpath
import stat

import pytest

from novalite.virt.qemu import cpio, guest_dhcpcd, guest_image, guest_kernel
from tests.unit.virt.qemu import cpio_reader, elf_maker


def test_initramfs_holds_busybox_modules_init_and_power_button():
    modules = {"virtio_ring": b"R", "virtio": b"V"}
    members = cpio_reader.read(gzip.decompress(guest_image.initramfs(b"BUSYBOX", modules, [])))
    assert members["bin/busybox"][:2] == (stat.S_IFREG | 0o755, b"BUSYBOX")
    assert members["lib/modules/virtio_ring.ko"][1] == b"R"
    assert stat.S_ISCHR(members["dev/console"][0])
    init = members["init"][1].decode()
    assert init.startswith("#!/bin/busybox sh\n")
    assert "for m in virtio_ring virtio; do insmod /lib/modules/$m.ko" in init
    assert "mount -t devtmpfs dev /dev" in init
    assert "mkdir -p /var/log /var/run; acpid" in init
    assert 'echo "NOVALITE-DISK $(cat /mnt/hello.txt)"' in init
    assert 'echo "NOVALITE-GUEST-UP uptime=' in init
    button = members["etc/acpi/PWRF/00000080"]
    assert button[0] & 0o111 and b"NOVALITE-GUEST-ACPI-POWEROFF" in button[1]
    assert b"poweroff -f" in button[1]
    assert guest_image.MARKER == "NOVALITE-GUEST-UP"


def test_init_starts_networking_in_the_background_after_the_marker():
    members = cpio_reader.read(gzip.decompress(guest_image.initramfs(b"B", {}, [])))
    init = members["init"][1].decode()
    assert init.index("\nnovalite-net &\n") > init.index('echo "NOVALITE-GUEST-UP')
    assert init.index("\nnovalite-net6 &\n") > init.index('echo "NOVALITE-GUEST-UP')
    for path, script in (("bin/novalite-net", guest_image.NET_SCRIPT),
                         ("bin/novalite-net6", guest_image.NET6_SCRIPT),
                         ("etc/udhcpc.script", guest_image.UDHCPC_SCRIPT)):
        mode, data = members[path][:2]
        assert mode == stat.S_IFREG | 0o755 and data == script.encode()
        assert data.startswith(b"#!/bin/sh\n")


def test_the_network_script_names_the_markers_and_leases_with_its_own_script():
    script = guest_image.NET_SCRIPT
    assert script.startswith("#!/bin/sh\nNET=NOVALITE-NET META=NOVALITE-META "
                             "USERDATA=NOVALITE-USERDATA\n")
    # -n: no lease ends udhcpc (eth0=none) instead of blocking the metadata for ever.
    udhcpc = "udhcpc -i eth0 -s /etc/udhcpc.script -O mtu -t 10 -T 1 -n"
    assert script.index(udhcpc) < script.index('echo "$NET eth0=${address:-none}"')
    assert "findfs LABEL=config-2" in script and "http://169.254.169.254/openstack/latest/" \
        in script


def test_the_udhcpc_script_flushes_before_it_sets_the_lease():
    bound = guest_image.UDHCPC_SCRIPT.split("bound|renew)")[1]
    assert bound.index('ip -4 addr flush dev "$interface"') < bound.index(
        'ip addr add "$ip/$mask"') < bound.index('ip route replace default via "$gateway"')


def test_the_udhcpc_script_leaves_the_kernels_ipv6_addresses():
    flushes = [line.strip() for line in guest_image.UDHCPC_SCRIPT.splitlines()
               if "flush" in line]
    assert flushes and all(line.startswith("ip -4 addr flush") for line in flushes)


def test_the_ipv6_script_reports_the_usable_global_addresses_in_its_own_line():
    script = guest_image.NET6_SCRIPT
    assert "ip -o -6 addr show dev eth0 scope global | grep -v tentative" in script
    assert script.rstrip().endswith('echo "$NET6 eth0=${found:-none}"')


def test_the_guest_kernel_brings_a_virtio_nic_and_the_config_drive_filesystems():
    assert {"failover", "net_failover", "virtio_net", "isofs", "vfat", "nls_cp437",
            "nls_ascii"} <= set(guest_kernel.MODULES)


def test_initramfs_is_the_same_on_every_build():
    client = _client()
    assert guest_image.initramfs(b"B", {"m": b"M"}, client) == guest_image.initramfs(
        b"B", {"m": b"M"}, client)


def test_is_static_looks_for_a_program_interpreter(tmp_path):
    (tmp_path / "static").write_bytes(elf_maker.executable())
    (tmp_path / "dynamic").write_bytes(elf_maker.executable("/lib64/ld.so"))
    (tmp_path / "script").write_bytes(b"#!/bin/sh\n")
    assert guest_image.is_static(tmp_path / "static")
    assert not guest_image.is_static(tmp_path / "dynamic")
    assert not guest_image.is_static(tmp_path / "script")


INTERPRETER = "/lib64/ld-linux-x86-64.so.2"


def _client() -> list[cpio.Entry]:
    """dhcpcd as the build takes it out of Debian's packages: the interpreter through
    Debian's absolute symbolic link, libc, which needs the interpreter too."""
    libraries = {
        "lib64/ld-linux-x86-64.so.2": cpio.symlink(
            "lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
        "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": cpio.regular(
            "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", elf_maker.executable(), 0o755),
        "lib/x86_64-linux-gnu/libc.so.6": cpio.regular(
            "lib/x86_64-linux-gnu/libc.so.6",
            elf_maker.executable(INTERPRETER, ("ld-linux-x86-64.so.2",)), 0o755),
    }
    program = cpio.regular(guest_dhcpcd.PROGRAM,
                           elf_maker.executable(INTERPRETER, ("libc.so.6",)), 0o755)
    return guest_dhcpcd.with_libraries(program, libraries)


def test_initramfs_holds_the_dhcp_client_that_its_interpreter_can_load():
    members = cpio_reader.read(gzip.decompress(guest_image.initramfs(b"B", {}, _client())))
    assert cpio_reader.loadable(members, guest_dhcpcd.PROGRAM) == [
        "lib/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"]
    assert cpio_reader.followed(members, INTERPRETER.lstrip("/"))[0] == stat.S_IFREG | 0o755
    names = list(members)
    for name in names:  # the kernel creates no directory a member's path goes through
        parent = posixpath.dirname(name)
        assert not parent or names.index(parent) < names.index(name), name
        assert not parent or stat.S_ISDIR(members[parent][0])
    for directory in ("run/dhcpcd", "var/lib/dhcpcd"):  # dhcpcd only makes the last level
        assert stat.S_ISDIR(members[directory][0])


def test_dhcpcd_configures_only_ipv6_and_runs_no_hooks():
    members = cpio_reader.read(gzip.decompress(guest_image.initramfs(b"B", {}, [])))
    conf = members["etc/dhcpcd.conf"][1].decode().splitlines()
    assert conf == ["ipv6only", "slaac hwaddr", "duid ll", 'script ""']


def test_the_ipv6_script_starts_dhcpcd_in_the_background_before_it_waits():
    script = guest_image.NET6_SCRIPT
    assert script.startswith("#!/bin/sh\nNET6=NOVALITE-NET6 DHCPCD=/usr/sbin/dhcpcd\n")
    start = '[ -e /sys/class/net/eth0 ] && "$DHCPCD" -b eth0 > /dev/null 2>&1\n'
    assert script.index(start) < script.index("while [ -e /sys/class/net/eth0 ]")


def test_missing_tools_name_the_packages(monkeypatch):
    monkeypatch.setattr(guest_image.shutil, "which",
                        lambda name: None if name in ("busybox", "qemu-img") else name)
    with pytest.raises(guest_image.GuestImageError) as exc:
        guest_image._tools()
    assert "needs busybox (busybox-static), qemu-img (qemu-utils):" in str(exc.value)
    assert ("apt-get install -y --no-install-recommends qemu-system-x86 qemu-utils "
            "busybox-static cpio") in str(exc.value)


def _cached(directory, recipe=guest_image.RECIPE):
    for name in (guest_image.KERNEL, guest_image.RAMDISK, guest_image.DISK):
        (directory / name).write_bytes(b"x")
    (directory / guest_image.STAMP).write_text(
        json.dumps({"recipe": recipe, "kernel_package": "linux-image-6-cloud-amd64"}))


def _no_build(*args):
    raise AssertionError("must not rebuild")


def test_a_complete_build_of_this_recipe_is_reused(tmp_path, monkeypatch):
    _cached(tmp_path)
    monkeypatch.setattr(guest_kernel, "fetch", _no_build)
    image = guest_image.ensure_built(str(tmp_path))
    assert image.kernel == tmp_path / "vmlinuz" and image.disk == tmp_path / "disk.qcow2"
    assert image.kernel_package == "linux-image-6-cloud-amd64"


@pytest.mark.parametrize("damage", ["old recipe", "missing file", "no stamp"])
def test_other_recipe_or_incomplete_cache_rebuilds(tmp_path, monkeypatch, damage):
    _cached(tmp_path, recipe=guest_image.RECIPE - 1 if damage == "old recipe" else
            guest_image.RECIPE)
    if damage == "missing file":
        (tmp_path / guest_image.RAMDISK).unlink()
    if damage == "no stamp":
        (tmp_path / guest_image.STAMP).unlink()
    (tmp_path / ".build-killed").mkdir()
    built = []
    monkeypatch.setattr(guest_image, "_build", lambda target: built.append(target))
    guest_image.ensure_built(str(tmp_path))
    assert built == [tmp_path] and not (tmp_path / ".build-killed").exists()
