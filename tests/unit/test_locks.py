import threading
import time

from novalite.locks import KeyedLocks


def test_same_key_serialises_and_different_keys_do_not():
    locks = KeyedLocks()
    order = []

    def hold(key, tag, seconds):
        with locks(key):
            order.append(f"{tag}+")
            time.sleep(seconds)
            order.append(f"{tag}-")

    first = threading.Thread(target=hold, args=("a", "a1", 0.1))
    first.start()
    time.sleep(0.02)
    second = threading.Thread(target=hold, args=("a", "a2", 0))
    other = threading.Thread(target=hold, args=("b", "b1", 0))
    second.start()
    other.start()
    for t in (first, second, other):
        t.join()
    assert order.index("a1-") < order.index("a2+")
    assert order.index("b1-") < order.index("a1-")


def test_locks_are_forgotten_when_unused():
    locks = KeyedLocks()
    with locks("x"):
        pass
    assert locks._locks == {}
