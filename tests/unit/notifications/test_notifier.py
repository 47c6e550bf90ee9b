"""The notifier: the wire message oslo.messaging's listeners expect, the drivers by name,
the gates of Nova's options, and that emitting never fails its caller."""

from __future__ import annotations

import json
import logging

import pytest

from novalite.context import RequestContext
from novalite.notifications import envelope, events, notifier
from novalite.notifications.objects.keypair import KeypairPayload
from novalite.rpc.transport import get_transport
from tests import notifications

CTX = RequestContext(user_id="u1", project_id="p1", auth_token="secret")
PAYLOAD = KeypairPayload(user_id="u1", name="k", fingerprint=None, public_key=None,
                         type="ssh")


def test_messagingv2_puts_oslo_messaging_s_envelope_on_topic_dot_priority(conf):
    notifications.enable(conf)
    conf.set_override("versioned_notifications_topics", ["a", "b"], group="notifications")
    wires: dict[str, dict] = {}
    transport = get_transport(conf.transport_url)
    for topic in ("a.info", "b.info"):
        transport.listen_notifications(topic, lambda wire, t=topic: wires.update({t: wire}))

    notifier.emit(CTX, "keypair.create.start", PAYLOAD, notifier.publisher_id(
        "novalite-api", "h1"))

    assert set(wires) == {"a.info", "b.info"}
    assert set(wires["a.info"]) == {"oslo.version", "oslo.message"}
    assert wires["a.info"]["oslo.version"] == "2.0"
    message = json.loads(wires["a.info"]["oslo.message"])
    assert {"message_id", "publisher_id", "event_type", "priority", "payload",
            "timestamp"} <= set(message)
    assert (message["publisher_id"], message["event_type"], message["priority"]) == (
        "nova-api:h1", "keypair.create.start", "INFO")
    assert message["payload"] == PAYLOAD.to_primitive()
    assert message["_context_request_id"] == CTX.request_id
    assert "_context_auth_token" not in message and "secret" not in json.dumps(message)


def test_messaging_sends_the_bare_message_and_log_logs_it(conf, caplog):
    notifications.enable(conf)
    conf.set_override("driver", ["messaging", "log"], group="oslo_messaging_notifications")
    wires: list[dict] = []
    get_transport(conf.transport_url).listen_notifications("versioned_notifications.error",
                                                           wires.append)
    with caplog.at_level(logging.ERROR, logger="oslo.messaging.notification"):
        notifier.emit(CTX, "compute.exception", PAYLOAD, "nova-api:h1", notifier.ERROR)
    [wire] = wires
    assert wire["event_type"] == "compute.exception" and "oslo.message" not in wire
    [record] = [r for r in caplog.records if r.name == "oslo.messaging.notification."
                                                       "compute.exception"]
    assert json.loads(record.getMessage())["payload"] == PAYLOAD.to_primitive()


def test_nothing_is_sent_without_a_driver_or_in_the_unversioned_format(conf, sink, caplog):
    conf.set_override("notification_format", "unversioned", group="notifications")
    notifier.emit(CTX, "keypair.create.start", PAYLOAD, "nova-api:h1")
    with caplog.at_level(logging.WARNING):
        notifier.check_config()
    assert "novalite has no legacy notifications" in caplog.text

    conf.set_override("notification_format", "both", group="notifications")
    conf.set_override("driver", [], group="oslo_messaging_notifications")
    notifier.emit(CTX, "keypair.create.start", PAYLOAD, "nova-api:h1")
    assert sink.received == []


@pytest.mark.parametrize("drivers, notification_format, sending", [
    ([], "versioned", False),
    (["noop"], "both", False),
    (["noop", "log"], "versioned", True),
    (["messagingv2"], "both", True),
    (["messagingv2"], "unversioned", False),
])
def test_notifications_are_enabled_by_a_driver_in_a_versioned_format(
        conf, drivers, notification_format, sending):
    conf.set_override("driver", drivers, group="oslo_messaging_notifications")
    conf.set_override("notification_format", notification_format, group="notifications")
    assert notifier.enabled() is sending


def test_an_unknown_driver_is_refused_at_start(conf):
    notifications.enable(conf)
    conf.set_override("driver", ["messagingv3"], group="oslo_messaging_notifications")
    with pytest.raises(ValueError, match="messagingv3.*Known drivers.*messagingv2"):
        notifier.check_config()


def test_a_failing_payload_or_listener_never_reaches_the_emitter(conf, sink, caplog):
    def broken() -> KeypairPayload:
        raise RuntimeError("boom")

    get_transport(conf.transport_url).listen_notifications(
        "versioned_notifications.info", lambda wire: 1 / 0)
    notifier.emit(CTX, "keypair.create.start", broken, "nova-api:h1")
    assert "Could not build notification keypair.create.start" in caplog.text
    notifier.emit(CTX, "keypair.create.end", PAYLOAD, "nova-api:h1")
    assert sink.events() == ["keypair.create.end"]  # the other listener still had it


def test_start_end_sends_compute_exception_instead_of_an_end(conf, sink):
    with pytest.raises(KeyError), events.start_end("keypair.delete", lambda: PAYLOAD,
                                                   ctx=CTX):
        raise KeyError("k")
    assert sink.events() == ["keypair.delete.start", "compute.exception"]
    error = sink.wait("compute.exception")
    assert error["priority"] == "ERROR"
    assert error["payload"]["nova_object.data"]["exception"] == "KeyError"


def test_a_message_outside_an_envelope_is_read_as_it_is():
    message = envelope.message(None, "nova-api:h", "flavor.create", "INFO", {})
    assert envelope.unwrap(envelope.wrap(message)) == message
    assert envelope.unwrap(message) == message
