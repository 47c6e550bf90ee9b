"""The in-process transport against the shared RPC scenarios (no broker, fast)."""

from __future__ import annotations

import pytest

from novalite.rpc.inprocess import InProcessTransport
from novalite.rpc.transport import get_transport
from tests.unit.rpc.scenarios import RPCScenarios


class TestInProcess(RPCScenarios):
    @pytest.fixture
    def transport(self):
        transport = InProcessTransport()
        yield transport
        transport.cleanup()


def test_get_transport_returns_one_inprocess_transport_per_url(conf):
    transport = get_transport("inprocess://")
    assert isinstance(transport, InProcessTransport)
    assert get_transport("inprocess://") is transport
