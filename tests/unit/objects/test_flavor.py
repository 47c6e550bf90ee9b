"""The flavor's disk size: one rule, in MB for the scheduler's filters and in GB for
placement and the resource tracker."""

from __future__ import annotations

from tests import builders


def test_disk_mb_counts_swap_exactly():
    flavor = builders.flavor(root_gb=10, ephemeral_gb=5, swap=512)
    assert flavor.disk_mb == 15 * 1024 + 512


def test_disk_gb_rounds_swap_up_to_whole_gb():
    assert builders.flavor(root_gb=10, ephemeral_gb=5, swap=512).disk_gb == 16
    assert builders.flavor(root_gb=10, ephemeral_gb=0, swap=2048).disk_gb == 12
    assert builders.flavor(root_gb=1, ephemeral_gb=0, swap=0).disk_gb == 1
