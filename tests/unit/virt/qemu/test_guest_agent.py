"""The guest agent client against an agent speaking QGA's protocol on a unix socket, as
QEMU's chardev hands it over: resynchronised past a previous client's leftovers, the
password sent base64-encoded, an agent's error and a silent channel told apart."""

from __future__ import annotations

import base64

import pytest

from novalite.virt.qemu import guest_agent
from tests.unit.virt.qemu.qga_agent import Agent


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "qga.sock")


def test_the_password_is_set_after_a_sync_past_what_an_earlier_client_left(path):
    agent = Agent(path, stale=b'{"return": {}}\n{"return": 7}\n')
    guest_agent.set_user_password(path, "root", "s3cret")
    agent.thread.join(timeout=5)
    sync, command = agent.commands
    assert sync["execute"] == "guest-sync-delimited"
    assert command == {"execute": "guest-set-user-password", "arguments": {
        "username": "root", "crypted": False,
        "password": base64.b64encode(b"s3cret").decode()}}


def test_an_agents_error_is_an_agent_error(path):
    Agent(path, answer={"error": {"class": "GenericError", "desc": "chpasswd failed"}})
    with pytest.raises(guest_agent.AgentError, match="chpasswd failed"):
        guest_agent.set_user_password(path, "root", "x")


def test_a_channel_no_agent_answers_on_is_unresponsive(path, monkeypatch):
    monkeypatch.setattr(guest_agent, "SYNC_TIMEOUT", 0.2)
    Agent(path, silent=True)
    with pytest.raises(guest_agent.AgentUnresponsive):
        guest_agent.set_user_password(path, "root", "x")


def test_a_guest_without_the_channel_is_unresponsive(path):
    with pytest.raises(guest_agent.AgentUnresponsive):
        guest_agent.set_user_password(path, "root", "x")
