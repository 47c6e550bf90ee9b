"""The guest's kernel and the modules its initramfs loads, taken from Debian's cloud
kernel package (LZ4-compressed, so it decompresses fast even under TCG) without
installing it: `apt-get download`, then only the needed members of its data tarball."""

from __future__ import annotations

import dataclasses
import gzip
import lzma
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from novalite import affinity

META_PACKAGE = "linux-image-cloud-amd64"
# What the busybox guest needs built as modules (=m) in the cloud kernel: a virtio disk,
# the ACPI power button with its input events, for a soft power-off, a virtio NIC, and a
# config drive's filesystem: iso9660 (which needs cdrom's symbols) or vfat, with the code
# page and character set vfat asks for at mount time, when there is no modprobe.
MODULES = ("button", "evdev", "virtio_ring", "virtio", "virtio_pci_modern_dev",
           "virtio_pci_legacy_dev", "virtio_pci", "virtio_blk", "failover", "net_failover",
           "virtio_net", "cdrom", "isofs", "fat", "vfat", "nls_cp437", "nls_ascii")



def _unzstd(data: bytes) -> bytes:
    """Python 3.11 has no zstd; Debian's zstd tool does it (newer kernels use .ko.zst)."""
    try:
        with affinity.unpinned():
            return subprocess.run(["zstd", "-dcq"], input=data, check=True,
                                  capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise KernelError(f"cannot decompress a .ko.zst module ({exc}); "
                          "apt-get install -y zstd") from None


# How each form of module Debian ships is made plain for busybox insmod.
_MODULE_SUFFIXES: dict[str, Callable[[bytes], bytes]] = {
    ".ko": bytes, ".ko.xz": lzma.decompress, ".ko.gz": gzip.decompress, ".ko.zst": _unzstd}


class KernelError(RuntimeError):
    """The kernel package could not be resolved, downloaded or read."""


@dataclasses.dataclass
class Kernel:
    package: str
    vmlinuz: bytes
    modules: dict[str, bytes]  # name -> uncompressed .ko, in load order


def _run(args: list[str], cwd: str | None = None) -> str:
    try:
        with affinity.unpinned():
            return subprocess.run(args, cwd=cwd, check=True, capture_output=True,
                                  text=True).stdout
    except subprocess.CalledProcessError as exc:
        raise KernelError(f"{' '.join(args)} failed: {exc.stderr.strip()}") from None


def resolve_package(meta: str = META_PACKAGE) -> str:
    """The versioned package `meta` depends on now (its ABI number changes)."""
    found = re.findall(r"Depends:\s+(linux-image-\S+)", _run(["apt-cache", "depends", meta]))
    if not found:
        raise KernelError(f"apt-cache knows no package behind {meta}; run apt-get update")
    return found[0]


def download(package: str, directory: str) -> Path:
    _run(["apt-get", "download", package], cwd=directory)
    debs = sorted(Path(directory).glob(f"{package}_*.deb"))
    if not debs:
        raise KernelError(f"apt-get download {package} left no .deb in {directory}")
    return debs[0]


def module_name(member: str) -> tuple[str, str] | None:
    """(name, suffix) of a module file's path, None for any other file."""
    base = member.rsplit("/", 1)[-1]
    for suffix in _MODULE_SUFFIXES:
        if base.endswith(suffix):
            return base[: -len(suffix)], suffix
    return None


def extract(deb: Path, wanted: Iterable[str] = MODULES) -> tuple[bytes, dict[str, bytes]]:
    """vmlinuz and the `wanted` modules (uncompressed), streamed out of the package's data
    tarball: nothing of its ~100 MB is written to disk."""
    wanted = set(wanted)
    vmlinuz, modules = b"", {}
    with affinity.unpinned():
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                                stdout=subprocess.PIPE)
    with proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                found = module_name(member.name) if "/lib/modules/" in member.name else None
                if found and found[0] in wanted:
                    data = tar.extractfile(member).read()  # type: ignore[union-attr]
                    modules[found[0]] = _MODULE_SUFFIXES[found[1]](data)
                elif re.fullmatch(r"\./boot/vmlinuz-.*", member.name):
                    vmlinuz = tar.extractfile(member).read()  # type: ignore[union-attr]
    if proc.returncode or not vmlinuz:
        raise KernelError(f"{deb.name} has no boot/vmlinuz-* (dpkg-deb rc={proc.returncode})")
    missing = wanted - modules.keys()
    if missing:
        raise KernelError(f"{deb.name} lacks the modules {', '.join(sorted(missing))}")
    return vmlinuz, modules


def dependencies(ko: bytes) -> list[str]:
    """The `depends=` of a module's .modinfo section (there is no depmod output here)."""
    match = re.search(rb"(?:^|\0)depends=([^\0]*)\0", ko)
    return [d for d in match.group(1).decode().split(",") if d] if match else []


def load_order(modules: dict[str, bytes], preferred: Iterable[str] = MODULES) -> list[str]:
    """Every module after those it depends on, otherwise in `preferred` order; a
    dependency that is not among `modules` is an error (insmod would fail in the guest)."""
    deps = {name: dependencies(ko) for name, ko in modules.items()}
    order: list[str] = []

    def visit(name: str, chain: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in chain:
            raise KernelError(f"module dependency cycle: {' -> '.join((*chain, name))}")
        if name not in deps:
            raise KernelError(f"module {chain[-1]} depends on {name}, which is not included")
        for dep in deps[name]:
            visit(dep, (*chain, name))
        order.append(name)

    rank = {name: i for i, name in enumerate(preferred)}
    for name in sorted(deps, key=lambda n: (rank.get(n, len(rank)), n)):
        visit(name, ())
    return order


def fetch(meta: str = META_PACKAGE) -> Kernel:
    """Resolve, download and read the current cloud kernel."""
    package = resolve_package(meta)
    with tempfile.TemporaryDirectory(prefix="novalite-kernel-") as tmp:
        vmlinuz, modules = extract(download(package, tmp))
    return Kernel(package, vmlinuz, {name: modules[name] for name in load_order(modules)})
