"""The one rule for what an instance fault says and keeps."""

from __future__ import annotations

from novalite import exception


def test_fault_message_is_a_domain_exceptions_own_text():
    exc = exception.InstanceNotFound(instance_id="i-1")
    assert exception.fault_message(exc) == exc.format_message()


def test_fault_message_of_an_error_without_text_is_its_class_name():
    assert exception.fault_message(ValueError("bad size")) == "bad size"
    assert exception.fault_message(RuntimeError()) == "RuntimeError"


def test_format_tb_keeps_the_raising_frame():
    try:
        raise KeyError("flavor")
    except KeyError as exc:
        text = exception.format_tb(exc)
    assert text.startswith("Traceback") and "KeyError: 'flavor'" in text
