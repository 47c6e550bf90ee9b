"""Nova's versioned notifications on RabbitMQ, read as an operator reads Nova's: with an
unmodified oslo.messaging notification listener, from the all-in-one whose services talk
over the broker (a vhost of the test's own)."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import pytest
from oslo_config import cfg

from tests import notifications
from tests.cloud import cloud_factory  # noqa: F401 (fixture)

with warnings.catch_warnings():  # oslo.messaging imports eventlet, which warns it is old
    warnings.simplefilter("ignore")
    import oslo_messaging

EXCHANGE = "nova"  # Nova's control_exchange, so the listener is configured as for Nova


class Endpoint:
    """An oslo.messaging notification endpoint keeping what it is given, by event type."""

    def __init__(self) -> None:
        self.received: list[tuple[dict, str, str, dict]] = []
        self.changed = threading.Condition()

    def info(self, ctxt: dict, publisher_id: str, event_type: str, payload: dict,
             metadata: dict) -> None:
        with self.changed:
            self.received.append((ctxt, publisher_id, event_type, payload))
            self.changed.notify_all()

    def wait(self, event_type: str, uuid: str, timeout: float = 20
             ) -> tuple[dict, str, str, dict]:
        def found() -> Any:
            return next((r for r in self.received if r[2] == event_type
                         and r[3]["nova_object.data"].get("uuid") == uuid), None)

        with self.changed:
            if not self.changed.wait_for(found, timeout):
                raise AssertionError(f"no {event_type}; got {[r[2] for r in self.received]}")
            return found()


@pytest.fixture
def listener(rabbit_vhost):
    """oslo.messaging's listener on the versioned_notifications topic. novalite's queues
    are durable (its RPC declares them so), hence amqp_durable_queues, as an operator
    sets it for a consumer of a broker whose queues are durable."""
    conf = cfg.ConfigOpts()
    transport = oslo_messaging.get_notification_transport(conf, url=rabbit_vhost)
    conf.set_override("amqp_durable_queues", True, group="oslo_messaging_rabbit")
    endpoint = Endpoint()
    server = oslo_messaging.get_notification_listener(
        transport, [oslo_messaging.Target(topic="versioned_notifications", exchange=EXCHANGE)],
        [endpoint], executor="threading")
    server.start()
    yield endpoint
    server.stop()
    server.wait()
    transport.cleanup()


def test_an_oslo_messaging_listener_receives_a_server_s_notifications(
        conf, rabbit_vhost, listener, cloud_factory):  # noqa: F811
    conf.set_override("transport_url", rabbit_vhost)
    conf.set_override("control_exchange", EXCHANGE)
    notifications.enable(conf)
    cloud = cloud_factory(hosts=1)

    server_id = cloud.boot("vm1")
    ctxt, publisher, _, payload = listener.wait("instance.create.end", server_id)
    assert payload["nova_object.name"] == "InstanceCreatePayload"
    assert payload["nova_object.version"] == "1.13"
    assert payload["nova_object.data"]["state"] == "active"
    assert publisher.startswith("nova-compute:")
    assert ctxt["request_id"].startswith("req-")  # the request context, as Nova sends it

    locking = cloud.api.post(f"/servers/{server_id}/action",
                             json={"lock": {"locked_reason": "maintenance"}},
                             headers={"X-OpenStack-Nova-API-Version": "2.73"})
    assert locking.status_code == 202, locking.text
    _, publisher, _, locked = listener.wait("instance.lock", server_id)
    assert publisher.startswith("nova-api:")  # sent by the API, as Nova's
    assert locked["nova_object.data"]["locked_reason"] == "maintenance"

    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    _, _, _, gone = listener.wait("instance.delete.end", server_id)
    assert gone["nova_object.data"]["state"] == "deleted"
