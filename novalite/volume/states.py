"""A volume's statuses, by Cinder's names, and the groups of them that requests check."""

from __future__ import annotations

CREATING = "creating"
AVAILABLE = "available"
DELETING = "deleting"
EXTENDING = "extending"
ERROR = "error"
ERROR_DELETING = "error_deleting"
ERROR_EXTENDING = "error_extending"
IN_USE = "in-use"
RESERVED = "reserved"
ATTACHING = "attaching"
DETACHING = "detaching"
UPLOADING = "uploading"

# Cinder's `delete` accepts these (without force)
DELETABLE = (AVAILABLE, ERROR, "error_restoring", ERROR_EXTENDING, "error_managing")

# What a manager killed in the middle of the work leaves, and what its successor makes of
# it at start-up (Cinder's init_host).
INTERRUPTED = {CREATING: ERROR, DELETING: ERROR_DELETING, EXTENDING: ERROR_EXTENDING}

# The statuses a volume takes from its attachments (novalite.volume.attachments), which a
# manager's start settles again from them (an upload a stopped manager never finished
# gives the volume back as its attachments make it, as Cinder's init_host does).
FOLLOW_ATTACHMENTS = (RESERVED, ATTACHING, IN_USE, DETACHING, UPLOADING)
