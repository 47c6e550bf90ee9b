import gzip
import io
import lzma
import subprocess
import tarfile

import pytest

from novalite.virt.qemu import guest_kernel


def ko(depends: str = "", name: str = "m") -> bytes:
    """Enough of a module for the reader: a .modinfo-like run of NUL-separated fields."""
    return b"\x7fELF...\0license=GPL\0depends=" + depends.encode() + b"\0name=" + \
        name.encode() + b"\0"


def test_dependencies_come_from_modinfo():
    assert guest_kernel.dependencies(ko("virtio_ring,virtio")) == ["virtio_ring", "virtio"]
    assert guest_kernel.dependencies(ko("")) == []
    assert guest_kernel.dependencies(b"no modinfo at all") == []


def test_load_order_puts_dependencies_first_then_preferred_order():
    modules = {
        "virtio_blk": ko("virtio,virtio_ring"),
        "virtio_pci": ko("virtio_ring,virtio_pci_modern_dev,virtio_pci_legacy_dev,virtio"),
        "virtio": ko("virtio_ring"),
        "virtio_ring": ko(),
        "virtio_pci_legacy_dev": ko(),
        "virtio_pci_modern_dev": ko(),
        "evdev": ko(),
        "button": ko(),
        "failover": ko(),
        "net_failover": ko("failover"),
        "virtio_net": ko("virtio_ring,virtio,net_failover"),
        "cdrom": ko(),
        "isofs": ko("cdrom"),
        "fat": ko(),
        "vfat": ko("fat"),
        "nls_cp437": ko(),
        "nls_ascii": ko(),
    }
    assert guest_kernel.load_order(modules) == list(guest_kernel.MODULES)
    order = guest_kernel.load_order(modules, preferred=["virtio_blk", "button"])
    assert order.index("virtio_ring") < order.index("virtio") < order.index("virtio_blk")
    assert order[:3] == ["virtio_ring", "virtio", "virtio_blk"]


def test_missing_dependency_and_cycle_are_errors():
    with pytest.raises(guest_kernel.KernelError, match="virtio_blk depends on virtio"):
        guest_kernel.load_order({"virtio_blk": ko("virtio")})
    with pytest.raises(guest_kernel.KernelError, match="cycle"):
        guest_kernel.load_order({"a": ko("b"), "b": ko("a")})


def test_module_name_knows_the_compressed_forms():
    assert guest_kernel.module_name("./lib/modules/6/kernel/x/virtio.ko") == ("virtio", ".ko")
    assert guest_kernel.module_name("./lib/modules/6/evdev.ko.xz") == ("evdev", ".ko.xz")
    assert guest_kernel.module_name("./lib/modules/6/modules.order") is None


def test_resolve_package_reads_apt_cache(monkeypatch):
    out = "linux-image-cloud-amd64\n  Depends: linux-image-6.1.0-56-cloud-amd64\n"
    monkeypatch.setattr(guest_kernel, "_run", lambda args, cwd=None: out)
    assert guest_kernel.resolve_package() == "linux-image-6.1.0-56-cloud-amd64"
    monkeypatch.setattr(guest_kernel, "_run", lambda args, cwd=None: "")
    with pytest.raises(guest_kernel.KernelError, match="apt-get update"):
        guest_kernel.resolve_package()


def _tarball(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_extract_streams_kernel_and_decompresses_modules(monkeypatch, tmp_path):
    tarball = _tarball({
        "./boot/vmlinuz-6.1.0-1-cloud-amd64": b"KERNEL",
        "./boot/config-6.1.0-1-cloud-amd64": b"CONFIG",
        "./lib/modules/6.1.0-1/kernel/drivers/virtio/virtio_ring.ko": ko(),
        "./lib/modules/6.1.0-1/kernel/drivers/virtio/virtio.ko.xz": lzma.compress(ko("a")),
        "./lib/modules/6.1.0-1/kernel/drivers/input/evdev.ko.gz": gzip.compress(ko()),
        "./lib/modules/6.1.0-1/kernel/drivers/other.ko": b"not wanted",
    })
    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda args, stdout: real_popen(
        ["cat", str(tmp_path / "data.tar")], stdout=stdout))
    (tmp_path / "data.tar").write_bytes(tarball)
    vmlinuz, modules = guest_kernel.extract(tmp_path / "k.deb",
                                            ["virtio_ring", "virtio", "evdev"])
    assert vmlinuz == b"KERNEL"
    assert modules == {"virtio_ring": ko(), "virtio": ko("a"), "evdev": ko()}
    with pytest.raises(guest_kernel.KernelError, match="lacks the modules virtio_blk"):
        guest_kernel.extract(tmp_path / "k.deb", ["virtio", "virtio_blk"])
