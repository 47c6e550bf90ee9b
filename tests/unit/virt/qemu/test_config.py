import json

from novalite.virt.qemu import config


def _config(**overrides) -> config.GuestConfig:
    values = dict(uuid="5e0d1c9a-1111-4222-8333-444455556666", memory_mb=128, vcpus=1,
                  accel="tcg", machine="q35", cpu_model="qemu64")
    values.update(overrides)
    return config.GuestConfig(**values)


def _option(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_command_line_carries_flavor_and_instance_files():
    paths = config.GuestPaths("/var/instances/x")
    argv = config.command("/usr/bin/qemu-system-x86_64", _config(memory_mb=192, vcpus=2), paths)
    assert argv[0] == "/usr/bin/qemu-system-x86_64"
    assert _option(argv, "-m") == "192" and _option(argv, "-smp") == "2"
    assert _option(argv, "-accel") == "tcg" and _option(argv, "-cpu") == "qemu64"
    assert _option(argv, "-uuid") == "5e0d1c9a-1111-4222-8333-444455556666"
    assert _option(argv, "-qmp") == "unix:qmp.sock,server=on,wait=off"  # QEMU runs in the dir
    assert _option(argv, "-pidfile") == "/var/instances/x/qemu.pid"
    assert _option(argv, "-drive") == "file=/var/instances/x/disk,format=qcow2,if=virtio"
    # the console log survives reboots: appended, never truncated
    assert "append=on" in _option(argv, "-chardev")
    assert "/var/instances/x/console.log" in _option(argv, "-chardev")
    assert "-kernel" not in argv and "-incoming" not in argv


def test_without_remote_consoles_the_serial_port_only_logs_and_there_is_no_vnc():
    argv = config.command("qemu", _config(), config.GuestPaths("/d"))
    assert _option(argv, "-chardev") == "file,id=console0,path=/d/console.log,append=on"
    assert _option(argv, "-serial") == "chardev:console0"
    assert "-vnc" not in argv


def test_vnc_takes_the_first_free_display_on_the_listen_address_without_a_window():
    guest = _config(nics=[NIC])
    argv = config.command("qemu", guest, config.GuestPaths("/d"), tap_fds=[7],
                          vnc_listen="192.0.2.5")
    # QEMU binds display 0 (port 5900), else the next free one, up to port 65535
    assert _option(argv, "-vnc") == "192.0.2.5:0,to=59635"
    assert _option(argv, "-display") == "none"
    # and nothing else: no video card, so the guest's PCI slots stay as they were
    argv.remove("-vnc")
    argv.remove("192.0.2.5:0,to=59635")
    assert argv == config.command("qemu", guest, config.GuestPaths("/d"), tap_fds=[7])
    ipv6 = config.command("qemu", _config(), config.GuestPaths("/d"), vnc_listen="::1")
    assert _option(ipv6, "-vnc") == "[::1]:0,to=59635"


def test_a_serial_console_listens_on_the_handed_socket_and_still_logs_every_boot():
    argv = config.command("qemu", _config(), config.GuestPaths("/d"), serial_fd=9)
    assert _option(argv, "-chardev") == ("socket,id=console0,fd=9,server=on,wait=off,"
                                         "logfile=/d/console.log,logappend=on")
    assert _option(argv, "-serial") == "chardev:console0"


def test_kvm_guests_get_the_host_cpu():
    argv = config.command("qemu", _config(accel="kvm"), config.GuestPaths("/d"))
    assert _option(argv, "-cpu") == "host"


def test_direct_kernel_boot_always_has_serial_console_and_no_timer_check():
    argv = config.command("qemu", _config(kernel="/b/k", ramdisk="/b/r",
                                          kernel_args="quiet panic=-1"),
                          config.GuestPaths("/d"))
    assert _option(argv, "-kernel") == "/b/k" and _option(argv, "-initrd") == "/b/r"
    assert _option(argv, "-append") == "quiet panic=-1 console=ttyS0 no_timer_check"


def test_kernel_arguments_are_not_repeated():
    assert config.kernel_command_line("console=ttyS0 no_timer_check") == \
        "console=ttyS0 no_timer_check"


def test_incoming_restores_saved_memory():
    argv = config.command("qemu", _config(), config.GuestPaths("/d"), incoming="exec:cat s")
    assert _option(argv, "-incoming") == "exec:cat s"


def test_config_round_trips_through_its_file(tmp_path):
    path = str(tmp_path / "guest.json")
    original = _config(kernel="/k", kernel_args="quiet")
    original.save(path)
    assert config.GuestConfig.load(path) == original


NIC = {"port_id": "p1", "mac": "fa:16:3e:00:00:05", "network_id": "n1",
       "network_type": "vxlan", "segmentation_id": 7, "physical_network": None, "mtu": 1450}


def test_each_nic_is_a_virtio_net_on_its_open_tap_with_the_ports_mac():
    second = {**NIC, "port_id": "p2", "mac": "fa:16:3e:00:00:06"}
    argv = config.command("qemu", _config(nics=[NIC, second]), config.GuestPaths("/d"),
                          tap_fds=[7, 9])
    netdevs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-netdev"]
    devices = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-device"]
    assert netdevs == ["tap,id=net0,fd=7", "tap,id=net1,fd=9"]
    # at the slots QEMU would give them, fixed so the guest's device metadata is true
    assert devices == ["virtio-net-pci,netdev=net0,mac=fa:16:3e:00:00:05,addr=0x1",
                       "virtio-net-pci,netdev=net1,mac=fa:16:3e:00:00:06,addr=0x2"]


def test_a_volume_backed_guests_nics_come_after_its_root_volume():
    argv = config.command("qemu", _config(nics=[NIC], root_volume=ROOT),
                          config.GuestPaths("/d"), tap_fds=[7])
    devices = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-device"]
    assert devices[0].endswith(",bootindex=1,addr=0x1")
    assert devices[1] == "virtio-net-pci,netdev=net0,mac=fa:16:3e:00:00:05,addr=0x2"


def test_the_guests_devices_are_where_its_command_line_puts_them():
    volume = {**ROOT, "serial": "v2", "port": 1}
    found = config.guest_devices(_config(nics=[NIC], root_volume=ROOT, pcie_ports=2,
                                         volumes=[volume]))
    assert [(d.type, d.address, d.mac or d.serial) for d in found] == [
        ("disk", "0000:00:01.0", ROOT["serial"]), ("nic", "0000:00:02.0", NIC["mac"]),
        ("disk", "0000:02:00.0", "v2")]
    assert all(d.bus == "pci" and d.tags == [] for d in found)


def test_a_configuration_saved_before_nics_existed_loads_without_any(tmp_path):
    path = tmp_path / "guest.json"
    _config().save(str(path))
    saved = path.read_text().replace(', "nics": []', "")
    path.write_text(saved)
    assert config.GuestConfig.load(str(path)).nics == []


def test_a_guest_made_before_volumes_loads_with_no_ports_and_no_volumes(tmp_path):
    path = tmp_path / "guest.json"
    path.write_text('{"uuid": "u", "memory_mb": 128, "vcpus": 1, "accel": "tcg", '
                    '"machine": "q35", "cpu_model": "qemu64"}')
    loaded = config.GuestConfig.load(str(path))
    assert (loaded.pcie_ports, loaded.volumes) == (0, [])
    assert not any("pcie-root-port" in arg for arg in config.command(
        "qemu", loaded, config.GuestPaths("/d")))


ROOT = {"serial": "0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b", "port": None, "host": "192.0.2.7",
        "nbd_port": 10809, "export": "0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b",
        "read_only": False}


def test_a_volume_backed_guest_boots_from_its_volume_where_the_disk_would_be():
    argv = config.command("qemu", _config(root_volume=ROOT, config_drive=True, pcie_ports=1),
                          config.GuestPaths("/d"))
    assert "file=/d/disk,format=qcow2,if=virtio" not in argv
    assert json.loads(_option(argv, "-blockdev"))["export"] == ROOT["export"]
    devices = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-device"]
    # on pcie.0 (no root port), first to boot; QEMU makes the command line's devices
    # before the -drive's, so it is the guest's first virtio disk, before the config drive
    assert devices[0] == ("virtio-blk-pci,drive=n0b7e4c1a2f3d4e5f8a9b0c1d2e3f4a,"
                          "id=d0b7e4c1a2f3d4e5f8a9b0c1d2e3f4a,"
                          f"serial={ROOT['serial']},bootindex=1,addr=0x1")
    assert _option(argv, "-drive") == "file=/d/disk.config,format=raw,if=virtio,readonly=on"


def test_a_guest_made_before_volume_backed_guests_loads_with_its_disk(tmp_path):
    path = tmp_path / "guest.json"
    path.write_text('{"uuid": "u", "memory_mb": 128, "vcpus": 1, "accel": "tcg", '
                    '"machine": "q35", "cpu_model": "qemu64", "pcie_ports": 0, "volumes": []}')
    loaded = config.GuestConfig.load(str(path))
    assert loaded.root_volume is None
    assert _option(config.command("qemu", loaded, config.GuestPaths("/d")), "-drive") == \
        "file=/d/disk,format=qcow2,if=virtio"


def test_a_root_volume_round_trips_through_the_file(tmp_path):
    path = str(tmp_path / "guest.json")
    _config(root_volume=ROOT).save(path)
    assert config.GuestConfig.load(path).root_volume == ROOT


def test_a_guest_whose_image_runs_an_agent_has_its_channel_at_a_fixed_slot():
    assert "virtserialport" not in " ".join(config.command("qemu", _config(),
                                                           config.GuestPaths("/d")))
    argv = config.command("qemu", _config(guest_agent=True), config.GuestPaths("/d"))
    chardevs = [argv[i + 1] for i, flag in enumerate(argv) if flag == "-chardev"]
    assert "socket,id=agent0,path=qga.sock,server=on,wait=off" in chardevs
    devices = [argv[i + 1] for i, flag in enumerate(argv) if flag == "-device"]
    assert "virtio-serial-pci,id=agent-serial,bus=pcie.0,addr=0xf" in devices
    assert ("virtserialport,bus=agent-serial.0,chardev=agent0,"
            "name=org.qemu.guest_agent.0") in devices
