"""The guest's DHCPv6 client: Debian's dhcpcd, with the libraries it is linked against,
taken from Debian's packages without installing them (`apt-get download`, then only
the needed members of their data tarballs), as the kernel is.

Debian's busybox has no udhcpc6 and Debian 12 has no odhcp6c; dhcpcd is what cloud
images run, and it starts DHCPv6 only when a router's advertisement asks for it (M or O).
Its libraries come from the packages of the same archive as its own, not from the build
machine, so the guest is the same whichever Debian release builds it. Only the program
is taken: its udev plugin (the reason dhcpcd-base depends on libudev1) is only loaded
when udev runs, and without it dhcpcd hears the kernel over netlink."""

from __future__ import annotations

import posixpath
import stat
import subprocess
import tarfile
import tempfile
from pathlib import Path

from novalite import affinity
from novalite.virt.qemu import cpio, elf

PACKAGE = "dhcpcd-base"
PROGRAM = "usr/sbin/dhcpcd"
# The packages the libraries it needs are looked for in; a soname found in none of
# them fails the build (the guest could not run dhcpcd).
LIBRARY_PACKAGES = ("libc6",)
# Where the interpreter looks with no ld.so.cache (Debian's multiarch directories).
LIBRARY_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu")
# Where x86-64 programs name their interpreter (PT_INTERP): Debian has a link there.
INTERPRETER_DIR = "lib64"


class ClientError(RuntimeError):
    """The client's packages could not be downloaded or lack what it needs."""


def fetch() -> list[cpio.Entry]:
    """The program and every file its interpreter loads, for the initramfs."""
    with tempfile.TemporaryDirectory(prefix="novalite-dhcpcd-") as tmp:
        packages = (PACKAGE, *LIBRARY_PACKAGES)
        try:
            with affinity.unpinned():
                subprocess.run(["apt-get", "download", *packages], cwd=tmp, check=True,
                               capture_output=True, text=True)
        except subprocess.CalledProcessError as exc:
            raise ClientError(f"apt-get download {' '.join(packages)} failed: "
                              f"{exc.stderr.strip()}") from None
        program = members(_deb(tmp, PACKAGE), {posixpath.dirname(PROGRAM)})
        if PROGRAM not in program:
            raise ClientError(f"{PACKAGE} has no {PROGRAM}")
        libraries: dict[str, cpio.Entry] = {}
        for package in LIBRARY_PACKAGES:
            libraries.update(members(_deb(tmp, package), {*LIBRARY_DIRS, INTERPRETER_DIR}))
    try:
        return with_libraries(program[PROGRAM], libraries)
    except elf.ElfError as exc:
        raise ClientError(f"{PACKAGE} or {', '.join(LIBRARY_PACKAGES)}: {exc}") from None


def _deb(directory: str, package: str) -> Path:
    debs = sorted(Path(directory).glob(f"{package}_*.deb"))
    if not debs:
        raise ClientError(f"apt-get download {package} left no .deb in {directory}")
    return debs[0]


def members(deb: Path, directories: set[str]) -> dict[str, cpio.Entry]:
    """The files and symbolic links directly in `directories` of the package, by path
    (relative, as in the initramfs), streamed out of its data tarball."""
    found = {}
    with affinity.unpinned():
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                                stdout=subprocess.PIPE)
    with proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                name = posixpath.normpath(member.name)
                if posixpath.dirname(name) not in directories:
                    continue
                if member.issym():
                    found[name] = cpio.symlink(name, member.linkname)
                elif member.isfile():
                    data = tar.extractfile(member).read()  # type: ignore[union-attr]
                    found[name] = cpio.regular(name, data, member.mode & 0o777)
    if proc.returncode:
        raise ClientError(f"dpkg-deb --fsys-tarfile {deb.name} failed "
                          f"(rc={proc.returncode})")
    return found


def with_libraries(program: cpio.Entry, libraries: dict[str, cpio.Entry]) -> list[cpio.Entry]:
    """`program`, its interpreter and the libraries it needs, theirs too, each at the path
    the interpreter opens (the symbolic links on the way kept, as Debian lays them out)."""
    chosen = {program.name: program}
    pending = [program]
    while pending:
        binary = pending.pop()
        paths = [interp.lstrip("/")] if (interp := elf.interpreter(binary.data)) else []
        for soname in elf.needed(binary.data):
            path = next((p for d in LIBRARY_DIRS if (p := f"{d}/{soname}") in libraries),
                        None)
            if path is None:
                raise ClientError(f"{binary.name} needs {soname}, which none of "
                                  f"{', '.join(LIBRARY_PACKAGES)} has in "
                                  f"{', '.join(LIBRARY_DIRS)}")
            paths.append(path)
        for path in paths:
            while path not in chosen:
                entry = libraries.get(path)
                if entry is None:
                    raise ClientError(f"{binary.name} needs /{path}, which none of "
                                      f"{', '.join(LIBRARY_PACKAGES)} has")
                chosen[path] = entry
                if stat.S_ISLNK(entry.mode):
                    path = posixpath.normpath(posixpath.join(
                        posixpath.dirname(path), entry.data.decode())).lstrip("/")
                else:
                    pending.append(entry)
    return sorted(chosen.values(), key=lambda entry: entry.name)
