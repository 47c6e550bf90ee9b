"""The datapath's command runner, without running a command."""

import pytest

from novalite.datapath import linux


def _failing_delete(argv, input_=None):
    if "delete" in argv:
        raise linux.DatapathError(f"{' '.join(argv)} failed: Cannot find device")
    return "[]"


def test_a_stale_link_the_kernel_removed_meanwhile_counts_as_deleted(monkeypatch):
    monkeypatch.setattr(linux, "run", _failing_delete)
    monkeypatch.setattr(linux, "links", lambda namespace: {})
    linux.delete_stale_link("ns", "ul-x")


def test_a_stale_link_that_will_not_go_is_an_error(monkeypatch):
    monkeypatch.setattr(linux, "run", _failing_delete)
    monkeypatch.setattr(linux, "links", lambda namespace: {"ul-x": {}})
    with pytest.raises(linux.DatapathError, match="Cannot find device"):
        linux.delete_stale_link("ns", "ul-x")
