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
SOFT_DELETING = "soft-deleting"
RESTORING = "restoring"
POWERING_OFF = "powering-off"
POWERING_ON = "powering-on"
REBOOTING = "rebooting"
REBOOT_PENDING = "reboot_pending"
REBOOT_STARTED = "reboot_started"
REBOOTING_HARD = "rebooting_hard"
REBOOT_PENDING_HARD = "reboot_pending_hard"
REBOOT_STARTED_HARD = "reboot_started_hard"
PAUSING = "pausing"
UNPAUSING = "unpausing"
SUSPENDING = "suspending"
RESUMING = "resuming"
UPDATING_PASSWORD = "updating_password"
# the steps of a resize or cold migration (Nova's names and values)
RESIZE_PREP = "resize_prep"
RESIZE_MIGRATING = "resize_migrating"
RESIZE_MIGRATED = "resize_migrated"
RESIZE_FINISH = "resize_finish"
RESIZE_REVERTING = "resize_reverting"
RESIZE_CONFIRMING = "resize_confirming"
# a snapshot (createImage), and a shelve's own
IMAGE_SNAPSHOT_PENDING = "image_snapshot_pending"
IMAGE_SNAPSHOT = "image_snapshot"
IMAGE_BACKUP = "image_backup"
IMAGE_PENDING_UPLOAD = "image_pending_upload"
IMAGE_UPLOADING = "image_uploading"
SHELVING = "shelving"
SHELVING_IMAGE_PENDING_UPLOAD = "shelving_image_pending_upload"
SHELVING_IMAGE_UPLOADING = "shelving_image_uploading"
SHELVING_OFFLOADING = "shelving_offloading"
UNSHELVING = "unshelving"
MIGRATING = "migrating"  # a live migration
RESCUING = "rescuing"
UNRESCUING = "unrescuing"
# the steps of a rebuild
REBUILDING = "rebuilding"
REBUILD_BLOCK_DEVICE_MAPPING = "rebuild_block_device_mapping"
REBUILD_SPAWNING = "rebuild_spawning"

SOFT_REBOOT_STATES = (REBOOTING, REBOOT_PENDING, REBOOT_STARTED)
REBUILD_TASKS = (REBUILDING, REBUILD_BLOCK_DEVICE_MAPPING, REBUILD_SPAWNING)
HARD_REBOOT_STATES = (REBOOTING_HARD, REBOOT_PENDING_HARD, REBOOT_STARTED_HARD)

# power_state: what the hypervisor says (ints, as stored).
NOSTATE = 0
RUNNING = 1
POWER_PAUSED = 3
SHUTDOWN = 4
CRASHED = 6
POWER_SUSPENDED = 7

# Where each power action may start from (Nova's vm_states/task_states ALLOW_* lists).
ALLOW_STOP = (ACTIVE, ERROR)
ALLOW_START = (STOPPED,)
ALLOW_SOFT_REBOOT = (ACTIVE,)
ALLOW_HARD_REBOOT = (ACTIVE, STOPPED, PAUSED, SUSPENDED, ERROR)
ALLOW_REBOOT_TASKS = (None, REBOOTING, REBOOT_PENDING, REBOOT_STARTED, RESUMING,
                      REBOOTING_HARD, UNPAUSING, PAUSING, SUSPENDING)
ALLOW_PAUSE = (ACTIVE,)
ALLOW_UNPAUSE = (PAUSED,)
ALLOW_SUSPEND = (ACTIVE,)
ALLOW_RESUME = (SUSPENDED,)
ALLOW_TRIGGER_CRASH_DUMP = (ACTIVE, PAUSED, RESCUED, RESIZED, ERROR)
ALLOW_SET_ADMIN_PASSWORD = (ACTIVE,)
ALLOW_RESIZE = (ACTIVE, STOPPED)
# Nova's, less the shelved ones, which take volumes from 2.20 only (their own check)
ALLOW_ATTACH_VOLUME = (ACTIVE, PAUSED, STOPPED, RESIZED, SOFT_DELETED)
ALLOW_ATTACH_INTERFACE = (ACTIVE, PAUSED, STOPPED)
ALLOW_REBUILD = (ACTIVE, STOPPED, ERROR)
ALLOW_RESCUE = (ACTIVE, STOPPED, ERROR)
ALLOW_LIVE_MIGRATE = (ACTIVE, PAUSED)
ALLOW_EVACUATE = (ACTIVE, STOPPED, ERROR)
ALLOW_SNAPSHOT = (ACTIVE, STOPPED, PAUSED, SUSPENDED)
ALLOW_SHELVE = (ACTIVE, STOPPED, PAUSED, SUSPENDED)
SNAPSHOT_TASKS = (IMAGE_SNAPSHOT_PENDING, IMAGE_SNAPSHOT, IMAGE_PENDING_UPLOAD,
                  IMAGE_UPLOADING)
SHELVE_TASKS = (SHELVING, SHELVING_IMAGE_PENDING_UPLOAD, SHELVING_IMAGE_UPLOADING,
                SHELVING_OFFLOADING)
ALLOW_UNRESCUE = (RESCUED,)
# A resize or cold migration under way, before it rests in RESIZED (status RESIZE).
RESIZE_TASKS = (RESIZE_PREP, RESIZE_MIGRATING, RESIZE_MIGRATED, RESIZE_FINISH)
# Task states in which the console is not read (Nova's reject_instance_state).
CONSOLE_REJECT_TASKS = (DELETING,)
# Power states in which a guest counts as off.
POWERED_OFF = (NOSTATE, SHUTDOWN, CRASHED)

POWER_STATE_NAMES = {NOSTATE: "pending", RUNNING: "running", POWER_PAUSED: "paused",
                     SHUTDOWN: "shutdown", CRASHED: "crashed", POWER_SUSPENDED: "suspended"}

# The tags of the 2.76 power-update external event: the power someone else gave a guest.
POWER_ON_TAG = "POWER_ON"
POWER_OFF_TAG = "POWER_OFF"
