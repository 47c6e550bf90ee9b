"""The conductor's build watchdog ends builds nobody advances: ERROR with a fault and the
placement claim freed, once."""

import datetime

from novalite.conductor import manager as conductor_manager
from novalite.conductor.manager import ConductorManager
from novalite.context import get_admin_context
from novalite.db.api import actions, instances
from novalite.timeutils import utcnow
from tests import builders


def test_a_stuck_build_is_buried_and_its_claim_freed_once(db, conf, monkeypatch):
    conf.set_override("build_watchdog_timeout", 60, group="conductor")
    freed = []
    monkeypatch.setattr(conductor_manager.placement_client, "free_allocations",
                        lambda ctx, uuid: freed.append(uuid))
    inst = builders.instance()
    instances.instance_create({"uuid": inst.uuid, "display_name": "vm", "project_id": "p",
                               "user_id": "u", "flavor": builders.flavor(),
                               "vm_state": "building", "task_state": "scheduling"})
    manager = ConductorManager("c1")
    manager._build_watchdog(get_admin_context())
    assert freed == []  # not stuck yet
    monkeypatch.setattr(conductor_manager, "utcnow",
                        lambda: utcnow() + datetime.timedelta(seconds=120))
    manager._build_watchdog(get_admin_context())
    manager._build_watchdog(get_admin_context())
    assert freed == [inst.uuid]
    assert instances.instance_get(inst.uuid).vm_state == "error"
    fault = actions.fault_get_latest([inst.uuid])[inst.uuid]
    assert "no progress for 60 s" in fault["message"]
