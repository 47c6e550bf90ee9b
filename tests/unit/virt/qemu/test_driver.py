import pytest

from novalite.virt.qemu import accel, driver


def test_missing_qemu_refuses_to_start_and_names_the_package(conf):
    conf.set_override("emulator", "/nonexistent/qemu-system-x86_64", group="qemu")
    with pytest.raises(driver.HypervisorUnavailable) as caught:
        driver.QemuDriver().init_host("host1")
    message = caught.value.format_message()
    assert "/nonexistent/qemu-system-x86_64" in message
    assert "apt-get install qemu-system-x86 qemu-utils" in message


def test_qemu_version_in_novas_integer_form(tmp_path):
    fake = tmp_path / "qemu-fake"
    fake.write_text("#!/bin/sh\necho 'QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)'\n")
    fake.chmod(0o755)
    assert driver._qemu_version(str(fake)) == 7002022


def test_host_memory_comes_from_meminfo():
    with open("/proc/meminfo") as meminfo:
        total_kb = int(meminfo.readline().split()[1])
    assert driver._host_memory_mb() == total_kb // 1024


@pytest.mark.parametrize("virt_type, expected", [("qemu", "tcg"), ("kvm", "kvm")])
def test_forced_virt_type_needs_no_probe(monkeypatch, virt_type, expected):
    monkeypatch.setattr(accel, "probe", lambda *a: pytest.fail("probed"))
    assert accel.choose("qemu", virt_type, 1.0) == expected


def test_auto_uses_tcg_when_the_kvm_probe_fails(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: True)
    monkeypatch.setattr(accel, "probe", lambda *a: "QEMU exited with -6: failed to set MSR")
    assert accel.choose("qemu", "auto", 1.0) == "tcg"


def test_auto_uses_kvm_when_a_guest_runs_under_it(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: True)
    monkeypatch.setattr(accel, "probe", lambda *a: None)
    assert accel.choose("qemu", "auto", 1.0) == "kvm"


def test_auto_without_usable_dev_kvm_does_not_probe(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: False)
    monkeypatch.setattr(accel, "probe", lambda *a: pytest.fail("probed"))
    assert accel.choose("qemu", "auto", 1.0) == "tcg"


def test_probe_sector_is_a_boot_sector():
    assert len(accel.PROBE_SECTOR) == 512 and accel.PROBE_SECTOR.endswith(b"\x55\xaa")


def test_host_uptime_is_the_uptime_commands_line():
    assert " up " in driver.QemuDriver().get_host_uptime()
