"""The AMQP server consumer's acknowledgements, against a mocked channel: early ones in
one frame before the messages run, late ones once the executor hands their tags back,
and never a tag of a channel lost since. A cast's publish against mocked publishers:
sent again it says so; refused, it is a messaging error."""

import json
import threading
from unittest import mock

import amqp
import pytest

from novalite.rpc import amqp as amqp_transport
from novalite.rpc.errors import TransportUnavailable
from novalite.rpc.target import Target


class Handler:
    """An RPC server as the consumer sees it: `late` names the methods acked late."""

    def __init__(self, late=(), room=100):
        self.late = set(late)
        self.free = room
        self.delivered = []

    def room(self):
        return self.free

    def acks_late(self, message):
        return message["method"] in self.late

    def late_ack_capacity(self):
        return 128 if self.late else 0

    def watch_room(self, wake):
        pass

    def deliver(self, message, reply, done=None, redelivered=False):
        self.delivered.append((message["method"], done, redelivered))


@pytest.fixture
def make():
    made = []

    def make(handler):
        consumer = amqp_transport._ServerConsumer(mock.MagicMock(url="amqp://x"),
                                                  Target("conductor", "c1"), handler)
        consumer.kick = mock.Mock()
        consumer.setup(mock.MagicMock())
        made.append(consumer)
        return consumer
    yield make
    for consumer in made:
        consumer.stop()  # closes its pipes (the thread never ran)
        consumer.run()


def arrive(consumer, *methods, first=1, redelivered=False):
    for tag, method in enumerate(methods, start=first):
        msg = amqp.Message(json.dumps({"method": method}).encode())
        msg.delivery_info = {"delivery_tag": tag, "redelivered": redelivered}
        consumer._on_message(msg)


def acks(consumer):
    return [(c.args[0], c.kwargs.get("multiple", False))
            for c in consumer.channel.basic_ack.call_args_list]


def test_messages_acked_early_are_acked_in_one_frame_before_they_run(make):
    handler = Handler()
    consumer = make(handler)
    consumer.channel.basic_ack.side_effect = lambda *a, **k: handler.delivered.append("ack")
    arrive(consumer, "a", "b", "c")
    consumer.flush()
    assert acks(consumer) == [(3, True)]
    assert handler.delivered[0] == "ack" and len(handler.delivered) == 4
    assert all(done is None for _, done, _ in handler.delivered[1:])


def test_a_late_message_is_acked_only_once_its_executor_hands_it_back(make):
    handler = Handler(late={"build"})
    consumer = make(handler)
    arrive(consumer, "build", "build")
    consumer.flush()
    assert acks(consumer) == []
    (_, first_done, _), (_, second_done, _) = handler.delivered
    worker = threading.Thread(target=second_done)  # from an executor thread
    worker.start()
    worker.join()
    consumer.kick.assert_called_once()
    assert acks(consumer) == []  # not from that thread: the consumer's flush acks
    consumer.flush()
    assert acks(consumer) == [(2, False)]  # behind the first, still running: alone
    first_done()
    consumer.flush()
    assert acks(consumer) == [(2, False), (1, True)]


def test_early_messages_behind_a_running_late_one_are_acked_each_on_its_own(make):
    handler = Handler(late={"build"})
    consumer = make(handler)
    arrive(consumer, "build", "get", "get")
    consumer.flush()
    assert acks(consumer) == [(2, False), (3, False)]
    handler.delivered[0][1]()
    arrive(consumer, "get", "get", first=4)
    consumer.flush()
    assert acks(consumer)[2:] == [(5, True)]  # 1 done and 4, 5 taken: one frame


def test_a_tag_of_a_channel_lost_since_is_not_acked_on_the_new_one(make):
    handler = Handler(late={"build"})
    consumer = make(handler)
    arrive(consumer, "build")
    consumer.flush()
    done = handler.delivered[0][1]
    consumer.setup(mock.MagicMock())  # reconnected: the broker requeued the message
    arrive(consumer, "build", redelivered=True)  # and delivers it again, as tag 1 anew
    consumer.flush()
    done()  # the first run ends
    consumer.flush()
    assert acks(consumer) == []  # tag 1 of the new channel is the second run's
    assert handler.delivered[1][2] is True  # told it may have run before
    handler.delivered[1][1]()
    consumer.flush()
    assert acks(consumer) == [(1, True)]


def test_the_prefetch_lets_the_late_messages_running_through(make):
    for handler, prefetch in ((Handler(), 64), (Handler(late={"build"}), 64 + 128)):
        consumer = make(handler)
        consumer.channel.basic_qos.assert_called_once_with(0, prefetch, False)


def test_only_what_the_executor_has_room_for_is_taken(make):
    handler = Handler(late={"build"}, room=2)
    consumer = make(handler)
    arrive(consumer, "build", "build", "build")
    consumer.flush()
    assert len(handler.delivered) == 2 and consumer._holding


def test_a_late_message_its_server_could_not_take_is_acked_not_held(make):
    handler = Handler(late={"build"})
    handler.deliver = mock.Mock(side_effect=RuntimeError("bug"))
    consumer = make(handler)
    arrive(consumer, "build")
    consumer.flush()
    consumer.flush()
    assert acks(consumer) == [(1, True)]


def test_a_message_that_is_not_json_is_acked_and_dropped(make):
    handler = Handler(late={"build"})
    consumer = make(handler)
    msg = amqp.Message(b"{nope")
    msg.delivery_info = {"delivery_tag": 1, "redelivered": False}
    consumer._on_message(msg)
    consumer.flush()
    assert acks(consumer) == [(1, True)] and handler.delivered == []


class Publishers:
    """Pooled publishers whose confirmed publishes fail as `outcomes` say, in turn (None:
    the broker acknowledged), and what each was asked to publish."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.sent = []

    def acquire(self, deadline):
        publisher = mock.MagicMock()

        def publish(message, **kwargs):
            self.sent.append(message)
            outcome = self.outcomes.pop(0)
            if outcome is not None:
                raise outcome
        publisher.confirming.return_value.basic_publish_confirm.side_effect = publish
        return publisher


@pytest.fixture
def transport():
    made = amqp_transport.AMQPTransport("amqp://guest:guest@127.0.0.1:1//")
    made._declared.add("topic")
    yield made
    made.cleanup()


def test_a_cast_sent_again_after_a_lost_acknowledgement_says_so(transport, monkeypatch):
    publishers = Publishers(ConnectionResetError("gone before the ack"), None)
    monkeypatch.setattr(transport, "_acquire", publishers.acquire)
    transport.send(Target("topic"), {"method": "note"}, wait_for_reply=False, timeout=5)
    first, again = publishers.sent
    assert amqp_transport.RESENT not in (first.headers or {})
    assert again.headers[amqp_transport.RESENT] is True


def test_a_cast_the_broker_refuses_fails_as_a_messaging_error(transport, monkeypatch):
    publishers = Publishers(amqp.exceptions.MessageNacked())
    monkeypatch.setattr(transport, "_acquire", publishers.acquire)
    with pytest.raises(TransportUnavailable, match="refused a message.*MessageNacked"):
        transport.send(Target("topic"), {"method": "note"}, wait_for_reply=False, timeout=5)
