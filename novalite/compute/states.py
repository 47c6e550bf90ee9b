"""Instance states, with Nova's values: vm_state, task_state and power_state."""

# vm_state: the stable state an instance rests in.
ACTIVE = "active"
BUILDING = "building"
PAUSED = "paused"
SUSPENDED = "suspended"
STOPPED = "stopped"
RESCUED = "rescued"
RESIZED = "resized"
SOFT_DELETED = "soft-delete"
DELETED = "deleted"
ERROR = "error"
SHELVED = "shelved"
SHELVED_OFFLOADED = "shelved_offloaded"

# task_state: what is being done to it right now (None when idle).
SCHEDULING = "scheduling"
BLOCK_DEVICE_MAPPING = "block_device_mapping"
NETWORKING = "networking"
SPAWNING = "spawning"
DELETING = "deleting"
POWERING_OFF = "powering-off"
POWERING_ON = "powering-on"
REBOOTING = "rebooting"
REBOOTING_HARD = "rebooting_hard"

# power_state: what the hypervisor says (ints, as stored).
NOSTATE = 0
RUNNING = 1
POWER_PAUSED = 3
SHUTDOWN = 4
CRASHED = 6
POWER_SUSPENDED = 7

POWER_STATE_NAMES = {NOSTATE: "pending", RUNNING: "running", POWER_PAUSED: "paused",
                     SHUTDOWN: "shutdown", CRASHED: "crashed", POWER_SUSPENDED: "suspended"}
