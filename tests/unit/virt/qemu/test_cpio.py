import stat

from novalite.virt.qemu import cpio
from tests.unit.virt.qemu import cpio_reader


def test_members_round_trip_with_types_and_padding():
    entries = [cpio.directory("bin"), cpio.regular("bin/a", b"xyz", 0o755),
               cpio.symlink("bin/sh", "busybox"), cpio.char_device("dev/console", 5, 1),
               cpio.regular("odd-name-len", b"12345")]
    data = cpio.archive(entries)
    members = cpio_reader.read(data)
    assert list(members) == ["bin", "bin/a", "bin/sh", "dev/console", "odd-name-len"]
    assert stat.S_ISDIR(members["bin"][0])
    assert members["bin/a"][:2] == (stat.S_IFREG | 0o755, b"xyz")
    assert stat.S_ISLNK(members["bin/sh"][0]) and members["bin/sh"][1] == b"busybox"
    assert stat.S_ISCHR(members["dev/console"][0]) and members["dev/console"][2] == (5, 1)
    assert members["odd-name-len"][1] == b"12345"
    assert len(data) % 4 == 0


def test_archive_is_the_same_on_every_build():
    entries = [cpio.regular("init", b"#!/bin/sh\n", 0o755)]
    assert cpio.archive(entries) == cpio.archive(entries)


def test_header_fields_are_eight_hex_digits():
    data = cpio.archive([cpio.regular("f", b"")])
    header = data[:110]
    assert header[:6] == b"070701"
    assert all(chr(c) in "0123456789ABCDEF" for c in header[6:])
    assert data[110:112] == b"f\0"
