"""The accelerator probe against the real QEMU: a one-sector guest writes to its serial
port under TCG, and so does the guests' kernel; auto picks an accelerator the kernel
really boots under (KVM on these machines may run the sector and hang the kernel)."""

import os

from novalite.virt.qemu import accel, guest_image
from tests import services


def test_probe_guest_runs_under_tcg():
    services.require_qemu()
    assert accel.probe("qemu-system-x86_64", "tcg", 20.0) is None


def test_auto_chooses_an_accelerator_the_guest_kernel_boots_under():
    services.require_qemu()
    kernel = str(guest_image.ensure_built().kernel)
    assert accel.probe("qemu-system-x86_64", "tcg", 60.0, kernel) is None
    chosen = accel.choose("qemu-system-x86_64", "auto", 10.0, kernel)
    if chosen == "kvm":
        assert os.access("/dev/kvm", os.R_OK | os.W_OK)
    assert accel.probe("qemu-system-x86_64", chosen, 60.0, kernel) is None
