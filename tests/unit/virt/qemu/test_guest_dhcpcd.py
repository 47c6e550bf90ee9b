import io
import stat
import subprocess
import tarfile

import pytest

from novalite.virt.qemu import cpio, elf, guest_dhcpcd
from tests.unit.virt.qemu import elf_maker

LD = "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
INTERPRETER = "/lib64/ld-linux-x86-64.so.2"


def test_elf_reads_the_interpreter_and_the_needed_libraries_in_order():
    program = elf_maker.executable(INTERPRETER, ("libc.so.6", "libm.so.6"))
    assert elf.interpreter(program) == INTERPRETER
    assert elf.needed(program) == ["libc.so.6", "libm.so.6"]
    assert elf.interpreter(elf_maker.executable()) is None
    assert elf.needed(elf_maker.executable()) == []
    assert elf.needed(elf_maker.executable(dynamic=True)) == []


@pytest.mark.parametrize("data", [b"#!/bin/sh\n", b"\x7fELF\x01\x01" + bytes(58),
                                  b"\x7fELF\x02\x01"])
def test_elf_refuses_what_is_no_64_bit_little_endian_elf_file(data):
    with pytest.raises(elf.ElfError):
        elf.interpreter(data)


def _libraries(*extra: cpio.Entry) -> dict[str, cpio.Entry]:
    entries = [
        cpio.symlink("lib64/ld-linux-x86-64.so.2", f"/{LD}"),
        cpio.regular(LD, elf_maker.executable(), 0o755),
        cpio.regular("lib/x86_64-linux-gnu/libc.so.6",
                     elf_maker.executable(INTERPRETER, ("ld-linux-x86-64.so.2",)), 0o755),
        cpio.symlink("usr/lib/x86_64-linux-gnu/libz.so.1", "libz.so.1.2"),
        cpio.regular("usr/lib/x86_64-linux-gnu/libz.so.1.2",
                     elf_maker.executable(None, ("libc.so.6",)), 0o644),
        cpio.regular("lib/x86_64-linux-gnu/libm.so.6", elf_maker.executable(), 0o644),
        *extra,
    ]
    return {entry.name: entry for entry in entries}


def test_the_client_comes_with_its_interpreter_and_libraries_and_nothing_else():
    program = cpio.regular(guest_dhcpcd.PROGRAM, elf_maker.executable(
        INTERPRETER, ("libz.so.1", "libc.so.6")), 0o755)
    chosen = guest_dhcpcd.with_libraries(program, _libraries())
    assert [entry.name for entry in chosen] == [
        LD, "lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2",
        "usr/lib/x86_64-linux-gnu/libz.so.1", "usr/lib/x86_64-linux-gnu/libz.so.1.2",
        guest_dhcpcd.PROGRAM]
    assert chosen[-1] is program and stat.S_ISLNK(chosen[2].mode)


def test_a_library_missing_from_the_packages_fails_the_build():
    program = cpio.regular(guest_dhcpcd.PROGRAM, elf_maker.executable(
        INTERPRETER, ("libudev.so.1",)), 0o755)
    with pytest.raises(guest_dhcpcd.ClientError,
                       match="usr/sbin/dhcpcd needs libudev.so.1, which none of libc6"):
        guest_dhcpcd.with_libraries(program, _libraries())
    dangling = cpio.regular(guest_dhcpcd.PROGRAM, elf_maker.executable(
        "/lib/ld-musl-x86_64.so.1"), 0o755)
    with pytest.raises(guest_dhcpcd.ClientError, match="needs /lib/ld-musl-x86_64.so.1"):
        guest_dhcpcd.with_libraries(dangling, _libraries())


def _tarball(path) -> None:
    with tarfile.open(path, mode="w") as tar:
        for name, data, link in (("./usr/sbin/dhcpcd", b"DHCPCD", None),
                                 ("./usr/sbin/other/deeper", b"NO", None),
                                 ("./etc/dhcpcd.conf", b"NOT WANTED", None),
                                 ("./lib64/ld-linux-x86-64.so.2", b"", f"/{LD}")):
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
            else:
                info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))


def test_members_streams_the_files_and_links_directly_in_the_directories(monkeypatch,
                                                                           tmp_path):
    _tarball(tmp_path / "data.tar")
    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda args, stdout: real_popen(
        ["cat", str(tmp_path / "data.tar")], stdout=stdout))
    found = guest_dhcpcd.members(tmp_path / "p.deb", {"usr/sbin", "lib64"})
    assert found == {
        "usr/sbin/dhcpcd": cpio.regular("usr/sbin/dhcpcd", b"DHCPCD", 0o755),
        "lib64/ld-linux-x86-64.so.2": cpio.symlink("lib64/ld-linux-x86-64.so.2", f"/{LD}")}
