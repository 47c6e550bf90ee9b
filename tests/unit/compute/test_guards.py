import datetime

import pytest

from novalite import exception
from novalite.compute import guards
from novalite.context import RequestContext
from novalite.objects import states
from novalite.objects.instance import Instance

LAUNCHED = datetime.datetime(2026, 1, 1)


def _instance(**kw) -> Instance:
    return Instance(**{"uuid": "u-1", "host": "h1", "vm_state": states.ACTIVE,
                       "launched_at": LAUNCHED, **kw})


def _message(call) -> str:
    with pytest.raises(exception.Conflict) as caught:
        call()
    assert caught.value.code == 409
    return caught.value.format_message()


def test_a_locked_instance_refuses_all_but_admins():
    locked = _instance(locked=True)
    user = RequestContext(user_id="u", project_id="p", roles=["member"])
    assert _message(lambda: guards.check_lock(user, locked)) == "Instance u-1 is locked"
    guards.check_lock(RequestContext(is_admin=True, roles=["admin"]), locked)
    guards.check_lock(user, _instance())


def test_an_instance_without_a_host_is_not_ready():
    assert _message(lambda: guards.check_host(_instance(host=None))) == \
        "Instance u-1 is not ready"


@pytest.mark.parametrize(("instance", "message"), [
    (_instance(vm_state=states.STOPPED, task_state=states.POWERING_ON),
     "Cannot 'stop' instance u-1 while it is in vm_state stopped"),  # vm_state first
    (_instance(task_state=states.REBOOTING),
     "Cannot 'stop' instance u-1 while it is in task_state rebooting"),
    (_instance(launched_at=None),
     "Cannot 'stop' instance u-1 while it is in launched_at None"),
])
def test_state_checks_in_novas_order(instance, message):
    assert _message(lambda: guards.check_state(instance, "stop", states.ALLOW_STOP)) == message


def test_a_hard_reboot_may_interrupt_a_soft_one():
    rebooting = _instance(task_state=states.REBOOTING)
    guards.check_state(rebooting, "reboot", states.ALLOW_HARD_REBOOT, states.ALLOW_REBOOT_TASKS)
    with pytest.raises(exception.InstanceInvalidState):
        guards.check_state(rebooting, "reboot", states.ALLOW_SOFT_REBOOT)


def test_a_task_under_way_can_block_reading():
    deleting = _instance(task_state=states.DELETING)
    assert _message(lambda: guards.reject_task_state(deleting, "get_console_output",
                                                     states.CONSOLE_REJECT_TASKS)) == \
        "Cannot 'get_console_output' instance u-1 while it is in task_state deleting"
    guards.reject_task_state(_instance(task_state=states.REBOOTING), "get_console_output",
                             states.CONSOLE_REJECT_TASKS)
