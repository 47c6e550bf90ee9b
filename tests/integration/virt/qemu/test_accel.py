"""The accelerator probe against the real QEMU: a one-sector guest writes to its serial
port under TCG; KVM on these machines cannot run it (nested PVM), so auto picks TCG."""

import os

from novalite.virt.qemu import accel
from tests import services


def test_probe_guest_runs_under_tcg():
    services.require_qemu()
    assert accel.probe("qemu-system-x86_64", "tcg", 20.0) is None


def test_auto_chooses_an_accelerator_that_runs_guests():
    services.require_qemu()
    chosen = accel.choose("qemu-system-x86_64", "auto", 10.0)
    if chosen == "kvm":
        assert os.access("/dev/kvm", os.R_OK | os.W_OK)
    assert accel.probe("qemu-system-x86_64", chosen, 20.0) is None
